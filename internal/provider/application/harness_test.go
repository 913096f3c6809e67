package application

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"sigs.k8s.io/yaml"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// fakeDP is the fake API server (dpfake) with what the resource reads and
// writes in namespace "demo": the package demo-app of repository demo at
// v1.0.0 (the settings schema of ../testdata/app/demo-settings.yaml) and
// Applications, which DP applies at once.
type fakeDP struct {
	*dpfake.Server
	t *testing.T
}

func newFakeDP(t *testing.T) *fakeDP {
	t.Helper()
	f := &fakeDP{Server: dpfake.New(t, dpfake.AppliesAtOnce()), t: t}
	f.setSchema(f.settingsSchema())
	return f
}

// settingsSchema is the settings schema of demo-settings.yaml.
func (f *fakeDP) settingsSchema() map[string]any {
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

// setSchema serves schema as the settings schema of demo-app v1.0.0.
func (f *fakeDP) setSchema(schema map[string]any) {
	f.AddPackageVersion("demo", "demo-app", "v1.0.0", schema)
}

// setGrantDefault serves the storageclasses grant of namespace demo (fast
// and slow) with default def ("" = no grant).
func (f *fakeDP) setGrantDefault(def string) {
	f.SetGrant("demo", "storageclasses", def, "fast", "slow")
}

// apply stores an apply configuration as Application demo/name, applied by DP.
func (f *fakeDP) apply(name string, cfg map[string]any) map[string]any {
	return f.Apply("demo", name, "", cfg)
}

// app returns a copy of Application demo/name as stored (nil when missing).
func (f *fakeDP) app(name string) map[string]any { return f.Object("demo", name) }

// editApp changes Application demo/name in place, unseen by watches.
func (f *fakeDP) editApp(name string, edit func(md map[string]any, obj map[string]any)) {
	f.Edit("demo", name, func(obj map[string]any) { edit(obj["metadata"].(map[string]any), obj) })
}

func (f *fakeDP) patchCount() int { return f.Count("PATCH") }

// allRequests returns every request served so far as "METHOD path?query",
// with the body of a DELETE (its propagation and preconditions).
func (f *fakeDP) allRequests() []string {
	var out []string
	for _, r := range f.Requests() {
		line := r.Method + " " + r.URI
		if r.Method == "DELETE" {
			line += " " + strings.TrimSpace(r.Body)
		}
		out = append(out, line)
	}
	return out
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
	configure(t, srv, dp.URL, "")
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
