package application

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// contractApplication is the Application an API server of the contract test
// serves.
func contractApplication(replicas int) map[string]any {
	effective := map[string]any{"replicas": replicas, "logLevel": "Info", "ingress": map[string]any{"host": "a.example.com"}}
	return map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "app", "namespace": "demo", "uid": "uid-1", "generation": 1, "resourceVersion": "7"},
		"spec": map[string]any{
			"packageName": "demo-app", "packageVersion": "v1.0.0", "packageRepositoryName": "demo",
			"settings": map[string]any{"replicas": replicas, "ingress": map[string]any{"host": "a.example.com"}},
		},
		"status": map[string]any{
			"summary":                  map[string]any{"state": "Ready"},
			"currentVersion":           map[string]any{"version": "v1.0.0"},
			"lastAppliedConfiguration": effective,
			"conditions": []any{map[string]any{
				"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied", "observedGeneration": 1,
				"lastTransitionTime": "2026-01-01T00:00:00Z",
			}},
		},
	}
}

// withForeignKey is the contract Application with a settings key another
// field manager (an Update entry, as kubectl edit writes) added beside the
// keys this provider's field manager applied.
func withForeignKey() map[string]any {
	o := contractApplication(2)
	o["spec"].(map[string]any)["settings"].(map[string]any)["domain"] = "web.example.com"
	o["metadata"].(map[string]any)["managedFields"] = []any{
		map[string]any{"manager": providerdata.DefaultFieldManager, "operation": "Apply", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:settings": map[string]any{"f:replicas": map[string]any{}, "f:ingress": map[string]any{"f:host": map[string]any{}}}}}},
		map[string]any{"manager": "kubectl-edit", "operation": "Update", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:settings": map[string]any{"f:domain": map[string]any{}}}}},
	}
	return o
}

// The refresh shortcut answers ReadResource as the framework does: the same
// state, private data, identity and diagnostics (the warning naming the
// settings other field managers own) when the Application still has the
// recorded UID and resourceVersion, whether or not the client sends an
// identity, and it leaves everything else to the framework: a state without
// the record, drift, a status-only change, a new resourceVersion of an equal
// object (the framework records it), another Application of the same name, a
// deleted Application and a pending update. Whichever answers, one call
// reads the Application once: what the shortcut read is handed over to the
// framework's Read.
func TestReadShortcut_AnswersAsTheFramework(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name         string
		served       map[string]any // nil: 404
		prior        map[string]any // the Application the prior state was refreshed from; nil: contractApplication(2)
		private      string
		identity     *[2]string // the identity the client sends; nil: none (a client without identity support)
		wantShortcut bool
		wantWarning  string
	}{
		{name: "unchanged", served: contractApplication(2), private: recorded("7"), identity: &[2]string{"demo", "app"}, wantShortcut: true},
		{name: "unchanged, settings of another field manager", served: withForeignKey(), prior: withForeignKey(), private: recorded("7"),
			identity: &[2]string{"demo", "app"}, wantShortcut: true, wantWarning: "settings.domain (kubectl-edit)"},
		{name: "unchanged, settings of another field manager, client without identity", served: withForeignKey(), prior: withForeignKey(),
			private: recorded("7"), wantShortcut: true, wantWarning: "settings.domain (kubectl-edit)"},
		{name: "changed, settings of another field manager", served: servedAt("8", func(o map[string]any) {
			f := withForeignKey()
			o["spec"], o["metadata"].(map[string]any)["managedFields"] = f["spec"], f["metadata"].(map[string]any)["managedFields"]
		}), private: recorded("7")},
		{name: "unchanged, client without identity", served: contractApplication(2), private: recorded("7"), wantShortcut: true},
		{name: "resourceVersion not recorded", served: contractApplication(2), private: `{"sensitive_paths":"W10=","uid":"InVpZC0xIg=="}`, identity: &[2]string{"demo", "app"}},
		{name: "identity of another Application", served: contractApplication(2), private: recorded("7"), identity: &[2]string{"demo", "other"}},
		{name: "drift", identity: &[2]string{"demo", "app"}, served: servedAt("8", func(o map[string]any) {
			o["spec"].(map[string]any)["settings"].(map[string]any)["replicas"] = 3
		}), private: recorded("7")},
		{name: "drift, client without identity", served: servedAt("8", func(o map[string]any) {
			o["spec"].(map[string]any)["settings"].(map[string]any)["replicas"] = 3
		}), private: recorded("7")},
		{name: "status-only change", served: servedAt("8", func(o map[string]any) {
			o["status"].(map[string]any)["summary"] = map[string]any{"state": "Failed", "message": "pod crash-looping"}
		}), private: recorded("7")},
		{name: "new resourceVersion, equal object", served: servedAt("8", nil), private: recorded("7")},
		{name: "another Application of the same name", served: func() map[string]any {
			o := contractApplication(2)
			o["metadata"].(map[string]any)["uid"] = "uid-2"
			return o
		}(), private: recorded("7")},
		{name: "deleted", identity: &[2]string{"demo", "app"}, served: nil, private: recorded("7")},
		{name: "pending update", identity: &[2]string{"demo", "app"}, served: contractApplication(2),
			private: `{"sensitive_paths":"W10=","uid":"InVpZC0xIg==","resource_version":"Ijci","apply_pending":"dHJ1ZQ=="}`},
		{name: "state without the UID", identity: &[2]string{"demo", "app"}, served: contractApplication(2), private: `{"sensitive_paths":"W10=","resource_version":"Ijci"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reads atomic.Int32
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reads.Add(1)
				if r.URL.Path != "/apis/deckhouse.io/v1alpha1/namespaces/demo/applications/app" || tt.served == nil {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(tt.served)
			}))
			defer api.Close()

			// The prior state is what a refresh of the unchanged Application records.
			prior := appState()
			r := &Resource{}
			from := tt.prior
			if from == nil {
				from = contractApplication(2)
			}
			raw, _ := json.Marshal(from)
			var obj unstructured.Unstructured
			if err := obj.UnmarshalJSON(raw); err != nil {
				t.Fatal(err)
			}
			r.fromObject(ctx, &prior, &obj, providerdata.DefaultFieldManager, func(s string) string { return s })
			req := &tfprotov6.ReadResourceRequest{
				TypeName:     TypeName,
				CurrentState: encodeModel(t, prior),
				Private:      []byte(tt.private),
			}
			if tt.identity != nil {
				req.CurrentIdentity = encodeIdentity(t, tt.identity[0], tt.identity[1])
			}
			s := newServers(t, api.URL, "")
			shortcutReads := int32(-1)
			read := func(srv tfprotov6.ProviderServer, ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
				before := reads.Load()
				resp, err := srv.ReadResource(ctx, req)
				if srv == s.shortcut {
					shortcutReads = reads.Load() - before
				}
				return resp, err
			}
			got, want, ok := compare(t, s, tt.wantShortcut, req, read)
			if shortcutReads != 1 {
				t.Errorf("the call read the Application %d times, want once", shortcutReads)
			}
			if !ok {
				return
			}
			if !reflect.DeepEqual(got.Diagnostics, want.Diagnostics) {
				t.Errorf("diagnostics differ:\n shortcut  %s\n framework %s", protoDiagText(got.Diagnostics), protoDiagText(want.Diagnostics))
			}
			if text := protoDiagText(want.Diagnostics); !strings.Contains(text, tt.wantWarning) ||
				(tt.wantWarning == "" && len(want.Diagnostics) > 0) {
				t.Errorf("framework diagnostics %q, want the warning %q", text, tt.wantWarning)
			}
			if !decodeModel(t, got.NewState).Equal(decodeModel(t, want.NewState)) {
				t.Errorf("state differs:\n shortcut  %v\n framework %v", decodeModel(t, got.NewState), decodeModel(t, want.NewState))
			}
			var gp, wp map[string][]byte
			_ = json.Unmarshal(got.Private, &gp)
			_ = json.Unmarshal(want.Private, &wp)
			for k, v := range wp {
				if string(gp[k]) != string(v) {
					t.Errorf("private %s: shortcut %q, framework %q", k, gp[k], v)
				}
			}
			gi, _ := got.NewIdentity.IdentityData.Unmarshal(identityType())
			wi, _ := want.NewIdentity.IdentityData.Unmarshal(identityType())
			if !gi.Equal(wi) {
				t.Errorf("identity differs: %v, %v", gi, wi)
			}
		})
	}
}

// protoDiagText is every diagnostic's severity, summary and detail.
func protoDiagText(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "%s %s: %s\n", d.Severity, d.Summary, d.Detail)
	}
	return b.String()
}

// recorded is the private data of a state written from the contract
// Application at resourceVersion rv.
func recorded(rv string) string {
	keys := map[string][]byte{}
	for k, v := range (privateState{Recorded: true, UID: "uid-1", ResourceVersion: rv}).encode() {
		if v != nil {
			keys[k] = v
		}
	}
	b, _ := json.Marshal(keys)
	return string(b)
}

// servedAt is the contract Application at resourceVersion rv, changed by mutate.
func servedAt(rv string, mutate func(map[string]any)) map[string]any {
	o := contractApplication(2)
	o["metadata"].(map[string]any)["resourceVersion"] = rv
	if mutate != nil {
		mutate(o)
	}
	return o
}

// A refresh decides from the recorded UID and resourceVersion and the
// state's namespace and name; a state written under the provider's field
// manager is decided so only while that is the default one (another one may
// own other labels and annotations).
func TestReadUnchanged_DecidesFromTheRecordAndTheStatesName(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(contractApplication(2))
	}))
	defer api.Close()
	var private map[string][]byte
	if err := json.Unmarshal([]byte(recorded("7")), &private); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name            string
		providerManager string
		attrs           map[string]string
		want            bool
	}{
		{name: "default field manager", providerManager: providerdata.DefaultFieldManager, attrs: map[string]string{"namespace": "demo", "name": "app"}, want: true},
		{name: "provider's own field manager", providerManager: "ops", attrs: map[string]string{"namespace": "demo", "name": "app"}},
		{name: "resource's own field manager", providerManager: "ops", attrs: map[string]string{"namespace": "demo", "name": "app", "field_manager": "team-a"}, want: true},
		{name: "no name", providerManager: providerdata.DefaultFieldManager, attrs: map[string]string{"namespace": "demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Resource{data: &providerdata.Data{FieldManager: tt.providerManager, RequestTimeout: 10e9, Conn: dpclient.Config{Host: api.URL}}}
			identity, _, _, ok := r.ReadUnchanged(context.Background(), tt.attrs, private)
			if ok != tt.want {
				t.Fatalf("ReadUnchanged = %v, want %v", ok, tt.want)
			}
			if ok && (identity["namespace"] != "demo" || identity["name"] != "app" || len(identity) != 2) {
				t.Fatalf("identity %v, want demo/app", identity)
			}
		})
	}
}

// The state a create or an update records is the one a refresh of the
// unchanged Application makes: the refresh shortcut answers right after each
// write, with the framework's answer, for clients with and without identity
// support.
func TestReadShortcut_AnswersAsTheFrameworkAfterAWrite(t *testing.T) {
	e := newPlanEnv(t)
	s := newServers(t, "", e.cp.KubeconfigPath())
	m := configOf(appState())
	m.Namespace, m.Name = types.StringValue(e.namespace), types.StringValue("written")
	m.PackageName, m.PackageRepositoryName = types.StringValue(e.pkg), types.StringValue(e.repository)
	m.Settings = convert.ToDynamic(map[string]any{"replicas": 2, "domain": "a.example.com"})
	null, err := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	if err != nil {
		t.Fatal(err)
	}
	created := frameworkWrite(t, s, &tfprotov6.ApplyResourceChangeResponse{NewState: &null}, encodeModel(t, m), encodeModel(t, m))
	assertReadsAsTheFramework(t, e, created)

	// The update: other settings and a label; the proposed state keeps the
	// prior computed values, as the CLI proposes it.
	prior := stateModel(t, created.NewState)
	m.Settings = convert.ToDynamic(map[string]any{"replicas": 3, "domain": "a.example.com"})
	m.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("a")})
	proposed := prior
	proposed.Settings, proposed.Labels = m.Settings, m.Labels
	updated := frameworkWrite(t, s, created, encodeModel(t, proposed), encodeModel(t, m))
	assertReadsAsTheFramework(t, e, updated)
}

// frameworkWrite plans and applies a change of prior through the framework.
func frameworkWrite(t *testing.T, s *servers, prior *tfprotov6.ApplyResourceChangeResponse, proposed, cfg *tfprotov6.DynamicValue) *tfprotov6.ApplyResourceChangeResponse {
	t.Helper()
	ctx := context.Background()
	plan, err := s.framework.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: prior.NewState, ProposedNewState: proposed, Config: cfg,
		PriorPrivate: prior.Private, PriorIdentity: prior.NewIdentity,
	})
	if err != nil || len(plan.Diagnostics) > 0 {
		t.Fatalf("plan: %v %v", err, plan.Diagnostics)
	}
	applied, err := s.framework.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: prior.NewState, PlannedState: plan.PlannedState, Config: cfg,
		PlannedPrivate: plan.PlannedPrivate, PlannedIdentity: plan.PlannedIdentity,
	})
	if err != nil || len(applied.Diagnostics) > 0 {
		t.Fatalf("apply: %v %v", err, applied.Diagnostics)
	}
	return applied
}

// assertReadsAsTheFramework refreshes a written state through the shortcut,
// which must answer, and the framework, and compares their answers. Both are
// new provider instances: the writer's namespace snapshots are not theirs.
func assertReadsAsTheFramework(t *testing.T, e *planEnv, written *tfprotov6.ApplyResourceChangeResponse) {
	t.Helper()
	s := newServers(t, "", e.cp.KubeconfigPath())
	for _, withIdentity := range []bool{true, false} {
		req := &tfprotov6.ReadResourceRequest{TypeName: TypeName, CurrentState: written.NewState, Private: written.Private}
		if withIdentity {
			req.CurrentIdentity = written.NewIdentity
		}
		got, want, _ := compare(t, s, true, req, tfprotov6.ProviderServer.ReadResource)
		if len(want.Diagnostics) > 0 {
			t.Fatalf("framework diagnostics: %v", want.Diagnostics[0])
		}
		if !decodeModel(t, got.NewState).Equal(decodeModel(t, want.NewState)) {
			t.Errorf("state differs:\n shortcut  %v\n framework %v", decodeModel(t, got.NewState), decodeModel(t, want.NewState))
		}
		if string(got.Private) != string(want.Private) {
			t.Errorf("private: shortcut %s, framework %s", got.Private, want.Private)
		}
		gi, _ := got.NewIdentity.IdentityData.Unmarshal(identityType())
		wi, _ := want.NewIdentity.IdentityData.Unmarshal(identityType())
		if !gi.Equal(wi) {
			t.Errorf("identity differs: %v, %v", gi, wi)
		}
	}
}

// stateModel decodes a state.
func stateModel(t *testing.T, dv *tfprotov6.DynamicValue) applicationModel {
	t.Helper()
	sch, _, _ := resourceTypes()
	var m applicationModel
	if diags := (tfsdk.State{Schema: sch, Raw: decodeModel(t, dv)}).Get(context.Background(), &m); diags.HasError() {
		t.Fatalf("decode state: %v", diags)
	}
	return m
}

// Every attribute that changes what apply writes is one specChanged or the
// metadata change check compares: a new spec field missing from them would let an
// unchanged-plan answer (of ModifyPlan or of the shortcut) hide a change.
func TestSpecChanged_CoversEveryAttributeApplyWrites(t *testing.T) {
	base := appState()
	baseBody, _ := json.Marshal(applyConfiguration(&base, map[string]any{"replicas": 2}))
	v := reflect.ValueOf(&base).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		altered := base
		f := reflect.ValueOf(&altered).Elem().Field(i)
		f.Set(reflect.ValueOf(otherThan(f.Interface().(attr.Value))))
		settings, _, _ := convert.FromDynamic(altered.Settings)
		if name != "Settings" {
			settings = map[string]any{"replicas": 2}
		}
		body, _ := json.Marshal(applyConfiguration(&altered, settings))
		if string(body) != string(baseBody) && !specChanged(&altered, &base) && !changed(&altered, &base, changeMetadata) {
			t.Errorf("a change of %s changes what apply writes, but neither specChanged nor the metadata check sees it", name)
		}
	}
}
