package ephemerals

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/datasources"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

const marker = "MARKER-5b0c9e"

// apiServer answers GET of the Application demo/web (whose settings hold
// marker, which DP's status message quotes) and 404 for any other.
func apiServer(t *testing.T) string {
	t.Helper()
	app := map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "web", "namespace": "demo", "generation": 1,
			"labels": map[string]any{"packages.deckhouse.io/instance": "web"}},
		"spec": map[string]any{"packageName": "demo-app", "packageVersion": "v1.0.0",
			"settings": map[string]any{"replicas": 2, "auth": map[string]any{"password": marker}}},
		"status": map[string]any{
			"summary":                  map[string]any{"state": "Failed", "message": "password " + marker + " rejected"},
			"lastAppliedConfiguration": map[string]any{"replicas": 2, "auth": map[string]any{"password": marker, "user": "admin"}},
			"conditions": []any{map[string]any{"type": "ConfigurationApplied", "status": "True",
				"reason": "ConfigurationApplied", "observedGeneration": 1}},
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/apis/deckhouse.io/v1alpha1/namespaces/demo/applications/web" {
			_ = json.NewEncoder(w).Encode(app)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
			"reason": "NotFound", "code": 404, "message": "not found"})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// config is the configuration of namespace/name in a schema of that type.
func config(ctx context.Context, typ tftypes.Type, namespace, name string) tftypes.Value {
	attrs := map[string]tftypes.Value{}
	for n, at := range typ.(tftypes.Object).AttributeTypes {
		attrs[n] = tftypes.NewValue(at, nil)
	}
	attrs["namespace"] = tftypes.NewValue(tftypes.String, namespace)
	attrs["name"] = tftypes.NewValue(tftypes.String, name)
	return tftypes.NewValue(typ, attrs)
}

// open configures a new ephemeral deckhouse_application with data and
// opens it on namespace/name.
func open(t *testing.T, data any, namespace, name string) ephemeral.OpenResponse {
	t.Helper()
	ctx := context.Background()
	r := NewApplication().(*Application)
	var sresp ephemeral.SchemaResponse
	r.Schema(ctx, ephemeral.SchemaRequest{}, &sresp)
	if sresp.Diagnostics.HasError() {
		t.Fatal(sresp.Diagnostics)
	}
	var cresp ephemeral.ConfigureResponse
	r.Configure(ctx, ephemeral.ConfigureRequest{ProviderData: data}, &cresp)
	if cresp.Diagnostics.HasError() {
		t.Fatal(cresp.Diagnostics)
	}
	cfg := config(ctx, sresp.Schema.Type().TerraformType(ctx), namespace, name)
	resp := ephemeral.OpenResponse{Result: tfsdk.EphemeralResultData{Schema: sresp.Schema, Raw: cfg.Copy()}}
	r.Open(ctx, ephemeral.OpenRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: cfg}}, &resp)
	return resp
}

func cluster(url string) *providerdata.Data {
	return &providerdata.Data{Conn: dpclient.Config{Host: url}}
}

// The ephemeral resource gives exactly what the data source reads of the
// same Application: spec, settings with their secrets, effective and last
// applied settings, and the status with DP's texts redacted.
func TestOpen_GivesWhatTheDataSourceReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := apiServer(t)
	got := open(t, cluster(url), "demo", "web")
	if got.Diagnostics.HasError() {
		t.Fatal(got.Diagnostics)
	}

	ds := datasources.NewApplication()
	ds.(datasource.DataSourceWithConfigure).Configure(ctx, datasource.ConfigureRequest{ProviderData: cluster(url)}, &datasource.ConfigureResponse{})
	var sresp datasource.SchemaResponse
	ds.Schema(ctx, datasource.SchemaRequest{}, &sresp)
	cfg := config(ctx, sresp.Schema.Type().TerraformType(ctx), "demo", "web")
	want := datasource.ReadResponse{State: tfsdk.State{Schema: sresp.Schema, Raw: cfg.Copy()}}
	ds.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: cfg}}, &want)
	if want.Diagnostics.HasError() {
		t.Fatal(want.Diagnostics)
	}
	if !got.Result.Raw.Equal(want.State.Raw) {
		t.Fatalf("the ephemeral result differs from the data source's:\n%s\nwant\n%s", got.Result.Raw, want.State.Raw)
	}

	var password, user, message string
	for p, target := range map[string]*string{
		"settings.auth.password":          &password,
		"last_applied_settings.auth.user": &user,
		"status.message":                  &message,
	} {
		steps := strings.Split(p, ".")
		path := tftypes.NewAttributePath()
		for _, s := range steps {
			path = path.WithAttributeName(s)
		}
		v, _, err := tftypes.WalkAttributePath(got.Result.Raw, path)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := v.(tftypes.Value).As(target); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if password != marker || user != "admin" {
		t.Errorf("settings.auth.password = %q, last_applied_settings.auth.user = %q: want the cluster's values", password, user)
	}
	if strings.Contains(message, marker) || !strings.Contains(message, diagnostics.RedactedMarker) {
		t.Errorf("status.message = %q: DP's text must be redacted of the settings' values", message)
	}
}

// Open fails as the data source fails: on an Application that does not
// exist, naming it, and before the provider is configured.
func TestOpen_FailsAsTheDataSourceFails(t *testing.T) {
	t.Parallel()
	url := apiServer(t)
	for _, tc := range []struct {
		name     string
		data     any
		app      string
		summary  string
		mentions string
	}{
		{name: "missing Application", data: cluster(url), app: "absent", summary: "Application not found", mentions: "demo/absent"},
		{name: "provider not configured", data: nil, app: "web", summary: "Provider not configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp := open(t, tc.data, "demo", tc.app)
			if !hasError(resp.Diagnostics, tc.summary, tc.mentions) {
				t.Fatalf("diagnostics %v, want an error %q naming %q", resp.Diagnostics, tc.summary, tc.mentions)
			}
		})
	}
}

func hasError(diags diag.Diagnostics, summary, detail string) bool {
	for _, d := range diags.Errors() {
		if d.Summary() == summary && strings.Contains(d.Detail(), detail) {
			return true
		}
	}
	return false
}

// Configure passes on what the data source's Configure says of provider
// data it cannot use.
func TestConfigure_ReportsUnusableProviderData(t *testing.T) {
	t.Parallel()
	var resp ephemeral.ConfigureResponse
	NewApplication().(*Application).Configure(context.Background(), ephemeral.ConfigureRequest{ProviderData: "not the provider's data"}, &resp)
	if !hasError(resp.Diagnostics, "Unexpected provider data", "string") {
		t.Fatalf("diagnostics %v, want Unexpected provider data", resp.Diagnostics)
	}
}

func TestMetadata_IsTheDataSourcesTypeName(t *testing.T) {
	t.Parallel()
	var resp ephemeral.MetadataResponse
	NewApplication().Metadata(context.Background(), ephemeral.MetadataRequest{ProviderTypeName: "deckhouse"}, &resp)
	if resp.TypeName != "deckhouse_application" {
		t.Fatalf("type name %q, want deckhouse_application", resp.TypeName)
	}
}
