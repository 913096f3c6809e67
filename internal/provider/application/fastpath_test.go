package application

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/protocol"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// The contract tests of this file's neighbours send the same requests to
// the protocol shortcuts of package protocol and to the framework's server,
// both serving this resource for a provider configured the same way, and
// compare the answers.

// testProvider serves deckhouse_application alone. Its configuration names
// the cluster by host or kubeconfig; Configure hands the resource the same
// providerdata.Data the deckhouse provider would.
type testProvider struct {
	data *providerdata.Data
	// planChecks and requestTimeout replace the defaults (best_effort, 10 s)
	// when set.
	planChecks     string
	requestTimeout time.Duration
}

type testProviderModel struct {
	Host       types.String `tfsdk:"host"`
	ConfigPath types.String `tfsdk:"config_path"`
}

func (p *testProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "deckhouse"
}

func (p *testProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"host":        schema.StringAttribute{Optional: true},
		"config_path": schema.StringAttribute{Optional: true},
	}}
}

func (p *testProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m testProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	data := &providerdata.Data{
		FieldManager: providerdata.DefaultFieldManager, PlanChecks: providerdata.PlanChecksBestEffort,
		RequestTimeout: 10e9, Conn: dpclient.Config{Host: m.Host.ValueString()},
	}
	if p := m.ConfigPath.ValueString(); p != "" {
		data.Conn.ConfigPaths = []string{p}
	}
	if p.planChecks != "" {
		data.PlanChecks = p.planChecks
	}
	if p.requestTimeout != 0 {
		data.RequestTimeout = p.requestTimeout
	}
	p.data = data
	resp.ResourceData = data
}

func (p *testProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{NewResource}
}

func (p *testProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

func (p *testProvider) resourceData() any {
	if p.data == nil {
		return nil
	}
	return p.data
}

// frameworkCalls counts the calls that reach the framework's server behind
// the shortcuts: a call the shortcut answered never does.
type frameworkCalls struct {
	tfprotov6.ProviderServerWithListResource
	n int
}

func (f *frameworkCalls) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	f.n++
	return f.ProviderServerWithListResource.ValidateResourceConfig(ctx, req)
}

func (f *frameworkCalls) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	f.n++
	return f.ProviderServerWithListResource.PlanResourceChange(ctx, req)
}

func (f *frameworkCalls) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	f.n++
	return f.ProviderServerWithListResource.UpgradeResourceState(ctx, req)
}

func (f *frameworkCalls) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	f.n++
	return f.ProviderServerWithListResource.ApplyResourceChange(ctx, req)
}

func (f *frameworkCalls) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	f.n++
	return f.ProviderServerWithListResource.ReadResource(ctx, req)
}

// servers are the shortcuts and the framework, each with its own provider
// instance configured with the same host or kubeconfig ("" leaves them
// unconfigured).
type servers struct {
	shortcut  tfprotov6.ProviderServer
	behind    *frameworkCalls // the framework behind the shortcuts
	framework tfprotov6.ProviderServer
}

func newServers(t *testing.T, host, kubeconfig string) *servers {
	t.Helper()
	return newServersOf(t, host, kubeconfig, testProvider{})
}

// newServersOf is newServers with providers made like proto.
func newServersOf(t *testing.T, host, kubeconfig string, proto testProvider) *servers {
	t.Helper()
	p, fp := proto, proto
	behind := &frameworkCalls{ProviderServerWithListResource: providerserver.NewProtocol6(&p)().(tfprotov6.ProviderServerWithListResource)}
	s := &servers{
		shortcut:  protocol.New(behind, p.resourceData, protocol.Resource{TypeName: TypeName, New: NewResource}),
		behind:    behind,
		framework: providerserver.NewProtocol6(&fp)(),
	}
	if host == "" && kubeconfig == "" {
		return s
	}
	for _, srv := range []tfprotov6.ProviderServer{s.shortcut, s.framework} {
		configure(t, srv, host, kubeconfig)
	}
	return s
}

func configure(t *testing.T, srv tfprotov6.ProviderServer, host, kubeconfig string) {
	t.Helper()
	ctx := context.Background()
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"host": tftypes.String, "config_path": tftypes.String}}
	str := func(s string) tftypes.Value {
		if s == "" {
			return tftypes.NewValue(tftypes.String, nil)
		}
		return tftypes.NewValue(tftypes.String, s)
	}
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{"host": str(host), "config_path": str(kubeconfig)}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &cfg})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
}

// compare sends req to the shortcuts through call and fails unless they
// answered it themselves exactly when wantShortcut says; when they did, it
// sends req to the framework too and returns both answers.
func compare[Req, Resp any](t *testing.T, s *servers, wantShortcut bool, req Req,
	call func(tfprotov6.ProviderServer, context.Context, Req) (Resp, error)) (got, want Resp, ok bool) {
	t.Helper()
	ctx := context.Background()
	got, err := call(s.shortcut, ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if answered := s.answered(); answered != wantShortcut {
		t.Fatalf("shortcut answered = %v, want %v", answered, wantShortcut)
	}
	if !wantShortcut {
		return got, want, false
	}
	if want, err = call(s.framework, ctx, req); err != nil {
		t.Fatal(err)
	}
	return got, want, true
}

// answered reports whether the shortcut answered the last call, and resets
// the count.
func (s *servers) answered() bool {
	n := s.behind.n
	s.behind.n = 0
	return n == 0
}

// The shortcuts serve this resource: a schema change they cannot follow (a
// default, plan modifier or validator they do not run) turns them off for
// it, and fails here rather than in a benchmark.
func TestShortcuts_CoverTheSchema(t *testing.T) {
	if err := protocol.Check(NewResource()); err != nil {
		t.Fatal(err)
	}
	var _ protocol.UnchangedPlanner = &Resource{}
	var _ protocol.UnchangedReader = &Resource{}
}
