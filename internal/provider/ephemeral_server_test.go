package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/protocol"
)

// The protocol server forwards every ephemeral resource RPC to the
// framework, with the shortcuts in front and without them: the schema and
// the metadata list ephemeral "deckhouse_application", its configuration is
// validated, it opens before and after the provider is configured with the
// data source's answers, and Renew and Close get the framework's answers.
func TestProtocolServer_EphemeralRPCsReachTheFramework(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodGet || r.URL.Path != "/apis/deckhouse.io/v1alpha1/namespaces/demo/applications/web" {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": "web", "namespace": "demo"},
			"spec":     map[string]any{"packageName": "demo-app", "packageVersion": "v1.0.0", "settings": map[string]any{"token": "t0k"}},
		})
	}))
	defer srv.Close()
	const typeName = "deckhouse_application"
	for _, shortcuts := range []string{"on", "off"} {
		t.Run("shortcuts "+shortcuts, func(t *testing.T) {
			t.Setenv(protocol.EnvVar, map[string]string{"on": "", "off": "off"}[shortcuts])
			ctx := context.Background()
			s := ProtocolServer("test")()

			md, err := s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
			if err != nil || !hasEphemeral(md.EphemeralResources, typeName) {
				t.Fatalf("GetMetadata: %v, ephemeral resources %v", err, md.EphemeralResources)
			}
			schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil || hasErrors(t, "GetProviderSchema", schemas.Diagnostics) {
				t.Fatal(err)
			}
			schema := schemas.EphemeralResourceSchemas[typeName]
			if schema == nil {
				t.Fatalf("GetProviderSchema lists no ephemeral %s", typeName)
			}
			cfg := protoObject(t, schema.ValueType(), map[string]tftypes.Value{
				"namespace": tftypes.NewValue(tftypes.String, "demo"),
				"name":      tftypes.NewValue(tftypes.String, "web"),
			})

			v, err := s.ValidateEphemeralResourceConfig(ctx, &tfprotov6.ValidateEphemeralResourceConfigRequest{TypeName: typeName, Config: cfg})
			if err != nil || hasErrors(t, "ValidateEphemeralResourceConfig", v.Diagnostics) {
				t.Fatal(err)
			}
			open, err := s.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{TypeName: typeName, Config: cfg})
			if err != nil || !hasSummary(open.Diagnostics, "Provider not configured") {
				t.Fatalf("Open before ConfigureProvider: %v, diagnostics %v, want the data source's Provider not configured", err, diagTexts(open.Diagnostics))
			}

			conf, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: protoObject(t, schemas.Provider.ValueType(), map[string]tftypes.Value{
				"host": tftypes.NewValue(tftypes.String, srv.URL),
			})})
			if err != nil || hasErrors(t, "ConfigureProvider", conf.Diagnostics) {
				t.Fatal(err)
			}
			open, err = s.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{TypeName: typeName, Config: cfg})
			if err != nil || hasErrors(t, "OpenEphemeralResource", open.Diagnostics) {
				t.Fatal(err)
			}
			result, err := open.Result.Unmarshal(schema.ValueType())
			if err != nil {
				t.Fatal(err)
			}
			token, _, err := tftypes.WalkAttributePath(result, tftypes.NewAttributePath().WithAttributeName("settings").WithAttributeName("token"))
			if err != nil || !token.(tftypes.Value).Equal(tftypes.NewValue(tftypes.String, "t0k")) {
				t.Fatalf("Open's result: settings.token = %v (%v), want the cluster's value", token, err)
			}

			renew, err := s.RenewEphemeralResource(ctx, &tfprotov6.RenewEphemeralResourceRequest{TypeName: typeName, Private: open.Private})
			if err != nil || !hasSummary(renew.Diagnostics, "Ephemeral Resource Renew Not Implemented") {
				t.Fatalf("Renew: %v, diagnostics %v, want the framework's answer for a resource without Renew", err, diagTexts(renew.Diagnostics))
			}
			closed, err := s.CloseEphemeralResource(ctx, &tfprotov6.CloseEphemeralResourceRequest{TypeName: typeName, Private: open.Private})
			if err != nil || hasErrors(t, "CloseEphemeralResource", closed.Diagnostics) {
				t.Fatal(err)
			}
		})
	}
}

// protoObject is an object of typ with the given attributes, the others null.
func protoObject(t *testing.T, typ tftypes.Type, set map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.(tftypes.Object).AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range set {
		attrs[name] = v
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func hasEphemeral(list []tfprotov6.EphemeralResourceMetadata, typeName string) bool {
	for _, m := range list {
		if m.TypeName == typeName {
			return true
		}
	}
	return false
}

// hasErrors logs the error diagnostics and reports whether there are any.
func hasErrors(t *testing.T, rpc string, diags []*tfprotov6.Diagnostic) bool {
	t.Helper()
	failed := false
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Errorf("%s: %s: %s", rpc, d.Summary, d.Detail)
			failed = true
		}
	}
	return failed
}

func hasSummary(diags []*tfprotov6.Diagnostic, summary string) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError && d.Summary == summary {
			return true
		}
	}
	return false
}

func diagTexts(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return out
}
