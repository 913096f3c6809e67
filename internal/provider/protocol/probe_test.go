package protocol

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// probe is a resource for comparing the shortcuts with the framework: it
// implements every interface the shortcuts call, counts each call of its
// methods, and gives the diagnostics and answers its probeConfig says.

const probeType = "probe_thing"

// probeConfig says what a probe's methods report and do.
type probeConfig struct {
	configure, validators, validate diag.Diagnostics
	plan, unchanged, destroy        diag.Diagnostics // ModifyPlan of a create, of an unchanged plan, of a destroy
	replace                         path.Paths       // ModifyPlan of a create: replacements
	planPrivate                     map[string]string
	deferred                        bool
	delete                          diag.Diagnostics
}

// calls counts the calls of each probe method.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) add(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[method]++
}

// take returns the counts and resets them.
func (c *calls) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = nil
	if n == nil {
		n = map[string]int{}
	}
	return n
}

type probe struct {
	cfg   *probeConfig
	calls *calls
	data  any
}

var probeSchema = schema.Schema{Attributes: map[string]schema.Attribute{
	"name": schema.StringAttribute{Required: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
	"note": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("n")},
	"id": schema.StringAttribute{Computed: true,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
	"secret": schema.StringAttribute{Optional: true, WriteOnly: true},
	"old":    schema.StringAttribute{Optional: true, DeprecationMessage: "Use note."},
}}

var probeTyp = probeSchema.Type().TerraformType(context.Background())

var probeIdentityTyp = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}

func (p *probe) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = probeType
}

func (p *probe) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = probeSchema
}

func (p *probe) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"name": identityschema.StringAttribute{RequiredForImport: true},
	}}
}

func (p *probe) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	p.calls.add("Configure")
	p.data = req.ProviderData
	resp.Diagnostics.Append(p.cfg.configure...)
}

func (p *probe) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{probeValidator{p}}
}

type probeValidator struct{ p *probe }

func (v probeValidator) Description(context.Context) string         { return "probe" }
func (v probeValidator) MarkdownDescription(context.Context) string { return "probe" }
func (v probeValidator) ValidateResource(_ context.Context, _ resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	v.p.calls.add("ConfigValidator")
	resp.Diagnostics.Append(v.p.cfg.validators...)
}

func (p *probe) ValidateConfig(_ context.Context, _ resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	p.calls.add("ValidateConfig")
	if p.data != nil {
		resp.Diagnostics.AddWarning("Configured", "ValidateConfig ran on a configured resource")
	}
	resp.Diagnostics.Append(p.cfg.validate...)
}

func (p *probe) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	p.calls.add("ModifyPlan")
	switch {
	case req.Plan.Raw.IsNull():
		resp.Diagnostics.Append(p.cfg.destroy...)
	case !req.State.Raw.IsNull():
		resp.Diagnostics.Append(p.cfg.unchanged...)
	default:
		resp.Diagnostics.Append(p.cfg.plan...)
		resp.RequiresReplace = append(resp.RequiresReplace, p.cfg.replace...)
		for k, v := range p.cfg.planPrivate {
			resp.Diagnostics.Append(resp.Private.SetKey(ctx, k, []byte(v))...)
		}
		if p.cfg.deferred {
			resp.Deferred = &resource.Deferred{Reason: resource.DeferredReasonResourceConfigUnknown}
		}
	}
}

func (p *probe) PlanUnchanged(Private) bool { return len(p.cfg.unchanged) == 0 }

func (p *probe) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	p.calls.add("Create")
}

func (p *probe) Delete(ctx context.Context, _ resource.DeleteRequest, resp *resource.DeleteResponse) {
	p.calls.add("Delete")
	resp.Diagnostics.Append(p.cfg.delete...)
}

func (p *probe) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {
	p.calls.add("Read")
}

func (p *probe) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {
	p.calls.add("Update")
}

func (p *probe) ImportState(context.Context, resource.ImportStateRequest, *resource.ImportStateResponse) {
	p.calls.add("ImportState")
}

// probeProvider serves the probe; its Configure hands resources a non-nil
// value.
type probeProvider struct {
	newProbe func() resource.Resource
	mu       sync.Mutex
	data     any
}

func (pp *probeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "probe"
}
func (pp *probeProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (pp *probeProvider) Configure(_ context.Context, _ provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	pp.data = "configured"
	resp.ResourceData = pp.data
}
func (pp *probeProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{pp.newProbe}
}
func (pp *probeProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
func (pp *probeProvider) resourceData() any {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	return pp.data
}

// probePair is the probe served by the shortcuts (in front of the
// framework) and by the framework alone, each counting the probe's calls.
type probePair struct {
	shortcut, framework           tfprotov6.ProviderServer
	shortcutCalls, frameworkCalls *calls
	behind                        *countingServer
}

// countingServer counts the resource calls that reach the framework behind
// the shortcuts.
type countingServer struct {
	tfprotov6.ProviderServerWithListResource
	n int
}

func (c *countingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	c.n++
	return c.ProviderServerWithListResource.ValidateResourceConfig(ctx, req)
}

func (c *countingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	c.n++
	return c.ProviderServerWithListResource.PlanResourceChange(ctx, req)
}

func (c *countingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	c.n++
	return c.ProviderServerWithListResource.ApplyResourceChange(ctx, req)
}

func (c *countingServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	c.n++
	return c.ProviderServerWithListResource.UpgradeResourceState(ctx, req)
}

// newProbePair serves a probe configured by cfg both ways; configured
// says whether the provider's Configure runs first.
func newProbePair(t *testing.T, cfg *probeConfig, configured bool) *probePair {
	t.Helper()
	pp := &probePair{shortcutCalls: &calls{}, frameworkCalls: &calls{}}
	newProbe := func(c *calls) func() resource.Resource {
		return func() resource.Resource { return &probe{cfg: cfg, calls: c} }
	}
	sp := &probeProvider{newProbe: newProbe(pp.shortcutCalls)}
	fp := &probeProvider{newProbe: newProbe(pp.frameworkCalls)}
	pp.behind = &countingServer{ProviderServerWithListResource: providerserver.NewProtocol6(sp)().(tfprotov6.ProviderServerWithListResource)}
	pp.shortcut = New(pp.behind, sp.resourceData, Resource{TypeName: probeType, New: sp.newProbe})
	pp.framework = providerserver.NewProtocol6(fp)()
	ctx := context.Background()
	for _, srv := range []tfprotov6.ProviderServer{pp.shortcut, pp.framework} {
		if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			t.Fatal(err)
		}
		if !configured {
			continue
		}
		empty, err := tfprotov6.NewDynamicValue(tftypes.Object{}, tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{}))
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &empty}); err != nil || len(resp.Diagnostics) > 0 {
			t.Fatalf("configure: %v %v", err, resp.Diagnostics)
		}
	}
	pp.shortcutCalls.take()
	pp.frameworkCalls.take()
	return pp
}

// exchange is one request sent both ways: the answers, the probe's calls
// on each side, and whether the shortcut answered.
type exchange[Resp any] struct {
	got, want           Resp
	gotCalls, wantCalls map[string]int
	answeredByShortcut  bool
}

func send[Req, Resp any](t *testing.T, pp *probePair, req Req, call func(tfprotov6.ProviderServer, context.Context, Req) (Resp, error)) exchange[Resp] {
	t.Helper()
	ctx := context.Background()
	var x exchange[Resp]
	var err error
	pp.behind.n = 0
	if x.got, err = call(pp.shortcut, ctx, req); err != nil {
		t.Fatal(err)
	}
	x.answeredByShortcut = pp.behind.n == 0
	x.gotCalls = pp.shortcutCalls.take()
	if x.want, err = call(pp.framework, ctx, req); err != nil {
		t.Fatal(err)
	}
	x.wantCalls = pp.frameworkCalls.take()
	return x
}

// assertOnce fails unless each probe method ran at most once on the
// shortcut's side and, when same, as often as on the framework's.
func (x exchange[Resp]) assertCalls(t *testing.T, same bool) {
	t.Helper()
	for m, n := range x.gotCalls {
		if n > 1 {
			t.Errorf("%s ran %d times in one call through the shortcuts", m, n)
		}
	}
	if same && !reflect.DeepEqual(x.gotCalls, x.wantCalls) {
		t.Errorf("probe calls through the shortcuts %v, through the framework %v", x.gotCalls, x.wantCalls)
	}
}

// probeValue encodes an object of the probe's schema: the given attributes,
// the others null.
func probeValue(t *testing.T, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	full := map[string]tftypes.Value{}
	for name, typ := range probeTyp.(tftypes.Object).AttributeTypes {
		full[name] = tftypes.NewValue(typ, nil)
	}
	for k, v := range attrs {
		full[k] = v
	}
	dv, err := tfprotov6.NewDynamicValue(probeTyp, tftypes.NewValue(probeTyp, full))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func probeNull(t *testing.T) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(probeTyp, tftypes.NewValue(probeTyp, nil))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func probeIdentity(t *testing.T, name string) *tfprotov6.ResourceIdentityData {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(probeIdentityTyp, tftypes.NewValue(probeIdentityTyp, map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, name)}))
	if err != nil {
		t.Fatal(err)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// sameValue fails unless two DynamicValues decode to the same value of typ.
func sameValue(t *testing.T, what string, typ tftypes.Type, got, want *tfprotov6.DynamicValue) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Errorf("%s: shortcut %v, framework %v", what, got, want)
		return
	}
	if got == nil {
		return
	}
	g, err := got.Unmarshal(typ)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	w, err := want.Unmarshal(typ)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !g.Equal(w) {
		t.Errorf("%s: shortcut %v, framework %v", what, g, w)
	}
}

func sameIdentity(t *testing.T, got, want *tfprotov6.ResourceIdentityData) {
	t.Helper()
	if (got == nil || got.IdentityData == nil) != (want == nil || want.IdentityData == nil) {
		t.Errorf("identity: shortcut %v, framework %v", got, want)
		return
	}
	if got != nil && got.IdentityData != nil {
		sameValue(t, "identity", probeIdentityTyp, got.IdentityData, want.IdentityData)
	}
}

func sameDiagnostics(t *testing.T, got, want []*tfprotov6.Diagnostic) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics differ:\n shortcut  %s\n framework %s", diagString(got), diagString(want))
	}
}

func diagString(ds []*tfprotov6.Diagnostic) string {
	s := "["
	for _, d := range ds {
		s += d.Severity.String() + " " + d.Summary + ": " + d.Detail
		if d.Attribute != nil {
			s += " at " + d.Attribute.String()
		}
		s += "; "
	}
	return s + "]"
}

func samePlan(t *testing.T, got, want *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	sameDiagnostics(t, got.Diagnostics, want.Diagnostics)
	sameValue(t, "planned state", probeTyp, got.PlannedState, want.PlannedState)
	sameIdentity(t, got.PlannedIdentity, want.PlannedIdentity)
	if string(got.PlannedPrivate) != string(want.PlannedPrivate) {
		t.Errorf("planned private: shortcut %q, framework %q", got.PlannedPrivate, want.PlannedPrivate)
	}
	if !reflect.DeepEqual(got.RequiresReplace, want.RequiresReplace) {
		t.Errorf("replacements: shortcut %v, framework %v", got.RequiresReplace, want.RequiresReplace)
	}
	if !reflect.DeepEqual(got.Deferred, want.Deferred) {
		t.Errorf("deferral: shortcut %v, framework %v", got.Deferred, want.Deferred)
	}
}

func sameApply(t *testing.T, got, want *tfprotov6.ApplyResourceChangeResponse) {
	t.Helper()
	sameDiagnostics(t, got.Diagnostics, want.Diagnostics)
	sameValue(t, "new state", probeTyp, got.NewState, want.NewState)
	sameIdentity(t, got.NewIdentity, want.NewIdentity)
	if string(got.Private) != string(want.Private) {
		t.Errorf("private: shortcut %q, framework %q", got.Private, want.Private)
	}
}

// Requests of each shortcut's kind.

func validateReq(t *testing.T, attrs map[string]tftypes.Value, writeOnly bool) *tfprotov6.ValidateResourceConfigRequest {
	return &tfprotov6.ValidateResourceConfigRequest{TypeName: probeType, Config: probeValue(t, attrs),
		ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: writeOnly}}
}

func createPlanReq(t *testing.T, config map[string]tftypes.Value, identity bool) *tfprotov6.PlanResourceChangeRequest {
	cfg := probeValue(t, config)
	req := &tfprotov6.PlanResourceChangeRequest{TypeName: probeType, PriorState: probeNull(t), ProposedNewState: cfg, Config: cfg,
		ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: true}}
	if identity {
		req.PriorIdentity = &tfprotov6.ResourceIdentityData{IdentityData: func() *tfprotov6.DynamicValue {
			dv, err := tfprotov6.NewDynamicValue(probeIdentityTyp, tftypes.NewValue(probeIdentityTyp, nil))
			if err != nil {
				t.Fatal(err)
			}
			return &dv
		}()}
	}
	return req
}

// probeState is a state of the probe as a create records it.
func probeState(t *testing.T) *tfprotov6.DynamicValue {
	return probeValue(t, map[string]tftypes.Value{"name": str("a"), "note": str("n"), "id": str("id-1")})
}

func unchangedPlanReq(t *testing.T, identity bool) *tfprotov6.PlanResourceChangeRequest {
	state := probeState(t)
	req := &tfprotov6.PlanResourceChangeRequest{TypeName: probeType, PriorState: state, ProposedNewState: state,
		Config: probeValue(t, map[string]tftypes.Value{"name": str("a")}), PriorPrivate: []byte(`{"k":"InYi"}`)}
	if identity {
		req.PriorIdentity = probeIdentity(t, "a")
	}
	return req
}

func destroyPlanReq(t *testing.T, identity bool) *tfprotov6.PlanResourceChangeRequest {
	req := &tfprotov6.PlanResourceChangeRequest{TypeName: probeType, PriorState: probeState(t), ProposedNewState: probeNull(t),
		Config: probeNull(t), PriorPrivate: []byte(`{"k":"InYi"}`)}
	if identity {
		req.PriorIdentity = probeIdentity(t, "a")
	}
	return req
}

func deleteReq(t *testing.T, identity bool) *tfprotov6.ApplyResourceChangeRequest {
	req := &tfprotov6.ApplyResourceChangeRequest{TypeName: probeType, PriorState: probeState(t), PlannedState: probeNull(t),
		Config: probeNull(t), PlannedPrivate: []byte(`{"k":"InYi"}`)}
	if identity {
		req.PlannedIdentity = probeIdentity(t, "a")
	}
	return req
}
