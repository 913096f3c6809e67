package application

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"sigs.k8s.io/yaml"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// fakeDP is an httptest API server with the objects the resource reads and
// writes in namespace "demo": the package demo-app of repository demo at
// v1.0.0 (the settings schema of ../testdata/app/demo-settings.yaml), an
// optional grant catalog of storageclasses, and Applications. A server-side
// apply replaces the spec (this resource is the only field manager) and DP
// applies it at once: ConfigurationApplied=True for the new generation,
// status.lastAppliedConfiguration = spec.settings.
type fakeDP struct {
	t   *testing.T
	srv *httptest.Server

	mu           sync.Mutex
	apps         map[string]map[string]any
	grantDefault string            // "" = no AvailableClusterResource
	message      string            // status.summary.message and the condition's message of applied Applications
	requests     []string          // "METHOD path?query" of every request
	patches      []map[string]any  // bodies of the applies
	failPatch    func() (int, any) // answers a PATCH instead of applying it when it returns a code
	seq          int
	schema       map[string]any // settings schema; nil = demo-settings.yaml
	keepOnDelete bool           // a DELETE leaves the Application in place (a finalizer that never ends)
	dropReply    bool           // a PATCH is applied, then the connection is cut before the reply
}

func newFakeDP(t *testing.T) *fakeDP {
	t.Helper()
	f := &fakeDP{t: t, apps: map[string]map[string]any{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeDP) settingsSchema() map[string]any {
	if f.schema != nil {
		return f.schema
	}
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "app", "demo-settings.yaml"))
	if err != nil {
		f.t.Fatal(err)
	}
	var s map[string]any
	if err := yaml.Unmarshal(raw, &s); err != nil {
		f.t.Fatal(err)
	}
	return s
}

const appsPrefix = "/apis/deckhouse.io/v1alpha1/namespaces/demo/applications"

func (f *fakeDP) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("watch") == "true" {
		// No change comes: the watch stays open until the client leaves.
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	line := r.Method + " " + r.URL.RequestURI()
	if r.Method == http.MethodDelete {
		// The delete options (propagation, preconditions) are in the body.
		body, _ := io.ReadAll(r.Body)
		line += " " + strings.TrimSpace(string(body))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, line)
	w.Header().Set("Content-Type", "application/json")
	p := r.URL.Path
	switch {
	case p == "/apis/deckhouse.io/v1alpha1/applicationpackages/demo-app":
		f.reply(w, 200, map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "ApplicationPackage",
			"metadata": map[string]any{"name": "demo-app"}, "status": map[string]any{"availableRepositories": []any{"demo"}}})
	case p == "/apis/deckhouse.io/v1alpha1/applicationpackageversions/"+dpapi.PackageVersionName("demo", "demo-app", "v1.0.0"):
		f.reply(w, 200, map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "ApplicationPackageVersion",
			"metadata": map[string]any{"name": dpapi.PackageVersionName("demo", "demo-app", "v1.0.0"), "resourceVersion": "1"},
			"spec":     map[string]any{"packageName": "demo-app", "packageRepositoryName": "demo", "packageVersion": "v1.0.0"},
			"status": map[string]any{
				"conditions":     []any{map[string]any{"type": "MetadataLoaded", "status": "True", "reason": "Loaded", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
				"packageSchemas": map[string]any{"settingsSchema": map[string]any{"openAPIV3Schema": f.settingsSchema()}},
			}})
	case p == "/apis/multitenancy.deckhouse.io/v1alpha1/namespaces/demo/availableclusterresources/storageclasses" && f.grantDefault != "":
		f.reply(w, 200, map[string]any{"apiVersion": "multitenancy.deckhouse.io/v1alpha1", "kind": "AvailableClusterResource",
			"metadata": map[string]any{"name": "storageclasses", "namespace": "demo"},
			"status":   map[string]any{"default": f.grantDefault, "available": []any{map[string]any{"name": "fast"}, map[string]any{"name": "slow"}}}})
	case p == "/api":
		f.reply(w, 200, map[string]any{"kind": "APIVersions", "versions": []any{"v1"}, "serverAddressByClientCIDRs": []any{}})
	case p == "/apis":
		f.reply(w, 200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{}})
	case p == "/api/v1":
		f.reply(w, 200, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{map[string]any{
			"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret", "verbs": []any{"get", "list"}}}})
	case p == appsPrefix && r.Method == http.MethodGet:
		items := []any{}
		for _, a := range f.apps {
			items = append(items, a)
		}
		f.reply(w, 200, map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "ApplicationList",
			"metadata": map[string]any{"resourceVersion": strconv.Itoa(f.seq)}, "items": items})
	case strings.HasPrefix(p, appsPrefix+"/"):
		f.serveApp(w, r, strings.TrimPrefix(p, appsPrefix+"/"))
	default:
		f.notFound(w)
	}
}

func (f *fakeDP) serveApp(w http.ResponseWriter, r *http.Request, name string) {
	switch r.Method {
	case http.MethodGet:
		if a, ok := f.apps[name]; ok {
			f.reply(w, 200, a)
			return
		}
		f.notFound(w)
	case http.MethodDelete:
		if a, ok := f.apps[name]; ok && f.keepOnDelete {
			// A finalizer holds it: the answer is the object.
			meta := a["metadata"].(map[string]any)
			meta["finalizers"] = []any{"packages.deckhouse.io/application"}
			meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
			f.reply(w, 200, a)
			return
		}
		delete(f.apps, name)
		f.reply(w, 200, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success"})
	case http.MethodPatch:
		body, _ := io.ReadAll(r.Body)
		var cfg map[string]any
		if err := json.Unmarshal(body, &cfg); err != nil {
			f.t.Errorf("apply body: %v", err)
		}
		f.patches = append(f.patches, cfg)
		if f.failPatch != nil {
			if code, reply := f.failPatch(); code != 0 {
				f.reply(w, code, reply)
				return
			}
		}
		if f.dropReply {
			f.apply(name, cfg)
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
					return
				}
			}
		}
		f.reply(w, 200, f.apply(name, cfg))
	default:
		f.notFound(w)
	}
}

// apply stores an apply configuration as the Application name, applied by DP.
func (f *fakeDP) apply(name string, cfg map[string]any) map[string]any {
	f.seq++
	old := f.apps[name]
	gen, uid := int64(1), "uid-"+name
	if old != nil {
		gen = asInt(old["metadata"].(map[string]any)["generation"]) + 1
		uid = old["metadata"].(map[string]any)["uid"].(string)
	}
	md, _ := cfg["metadata"].(map[string]any)
	meta := map[string]any{"name": name, "namespace": "demo", "uid": uid, "generation": gen, "resourceVersion": strconv.Itoa(f.seq)}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := md[k]; ok {
			meta[k] = v
		}
	}
	spec, _ := cfg["spec"].(map[string]any)
	settings := spec["settings"]
	if settings == nil {
		settings = map[string]any{}
	}
	cond := map[string]any{"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied",
		"observedGeneration": gen, "lastTransitionTime": "2026-01-01T00:00:00Z"}
	summary := map[string]any{"state": "Ready"}
	if f.message != "" {
		cond["message"], summary["message"] = f.message, f.message
	}
	obj := map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application", "metadata": meta, "spec": spec,
		"status": map[string]any{"summary": summary, "currentVersion": map[string]any{"version": spec["packageVersion"]},
			"lastAppliedConfiguration": settings, "conditions": []any{cond}},
	}
	f.apps[name] = obj
	return obj
}

func asInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return 0
}

func (f *fakeDP) reply(w http.ResponseWriter, code int, v any) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeDP) notFound(w http.ResponseWriter) {
	f.reply(w, 404, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
}

// app returns a copy of Application name as stored (nil when missing).
func (f *fakeDP) app(name string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.apps[name]
	if !ok {
		return nil
	}
	b, _ := json.Marshal(a)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func (f *fakeDP) patchCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.patches)
}

// allRequests returns every request line served so far.
func (f *fakeDP) allRequests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// harness drives the resource through the framework's protocol server,
// configured for a fakeDP, as the CLI does.
type harness struct {
	t   *testing.T
	dp  *fakeDP
	srv tfprotov6.ProviderServer
	p   *testProvider
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dp := newFakeDP(t)
	p := &testProvider{}
	srv := providerserver.NewProtocol6(p)()
	configure(t, srv, dp.srv.URL, "")
	return &harness{t: t, dp: dp, srv: srv, p: p}
}

// required sets plan_checks = "required".
func (h *harness) required() { h.p.data.PlanChecks = providerdata.PlanChecksRequired }

// demoConfig is the configuration of Application demo/app of package
// demo-app at v1.0.0 with settings.
func demoConfig(settings map[string]any) applicationModel {
	m := configOf(appState())
	m.PackageRepositoryName = types.StringValue("demo")
	m.Settings = convert2Dynamic(settings)
	return m
}

// proposed is the proposed new state the CLI sends: the configuration, with
// computed and optional-computed values from the prior state where the
// configuration leaves them null, and write-only values null.
func proposed(prior *applicationModel, config applicationModel) applicationModel {
	m := config
	m.SensitiveSettings = types.DynamicNull()
	if prior == nil {
		return m
	}
	for _, n := range attributeNames {
		if attributes[n].computed() && m.get(n).IsNull() {
			m.set(n, prior.get(n))
		}
	}
	return m
}

// step is the outcome of one plan, and of its apply when it had no error.
type step struct {
	plan    *tfprotov6.PlanResourceChangeResponse
	apply   *tfprotov6.ApplyResourceChangeResponse
	state   *tfprotov6.DynamicValue // the state after the step (the prior one when nothing was applied)
	private []byte
}

// planAndApply plans config against the prior state and private data, and
// applies the plan unless it failed.
func (h *harness) planAndApply(prior *tfprotov6.DynamicValue, priorPrivate []byte, config applicationModel) step {
	h.t.Helper()
	ctx := context.Background()
	var priorModel *applicationModel
	if prior == nil {
		null, err := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
		if err != nil {
			h.t.Fatal(err)
		}
		prior = &null
	} else {
		m := h.model(prior)
		priorModel = &m
	}
	cfg := encodeModel(h.t, config)
	planResp, err := h.srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: prior, ProposedNewState: encodeModel(h.t, proposed(priorModel, config)),
		Config: cfg, PriorPrivate: priorPrivate,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	out := step{plan: planResp, state: prior, private: priorPrivate}
	if hasError(planResp.Diagnostics) {
		return out
	}
	applyResp, err := h.srv.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: prior, PlannedState: planResp.PlannedState, Config: cfg,
		PlannedPrivate: planResp.PlannedPrivate,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	out.apply, out.state, out.private = applyResp, applyResp.NewState, applyResp.Private
	return out
}

// read refreshes a state.
func (h *harness) read(state *tfprotov6.DynamicValue, private []byte) *tfprotov6.ReadResourceResponse {
	h.t.Helper()
	resp, err := h.srv.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName: TypeName, CurrentState: state, Private: private, CurrentIdentity: encodeIdentity(h.t, "demo", "app"),
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// model decodes a state into the model.
func (h *harness) model(dv *tfprotov6.DynamicValue) applicationModel {
	h.t.Helper()
	return decodeToModel(h.t, dv)
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// diagText joins every diagnostic's summary and detail.
func diagText(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

func convert2Dynamic(settings map[string]any) types.Dynamic {
	if settings == nil {
		return types.DynamicNull()
	}
	return convert.ToDynamic(settings)
}

func decodeToModel(t *testing.T, dv *tfprotov6.DynamicValue) applicationModel {
	t.Helper()
	sch, _, _ := resourceTypes()
	st := tfsdk.State{Schema: sch, Raw: decodeModel(t, dv)}
	var m applicationModel
	if diags := st.Get(context.Background(), &m); diags.HasError() {
		t.Fatalf("decode state: %v", diags)
	}
	return m
}
