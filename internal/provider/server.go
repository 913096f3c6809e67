package provider

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/fastpath"
)

// ProtocolServer returns the provider's protocol server: the framework's
// server with the protocol shortcuts of package fastpath in front for
// deckhouse_application, and without the PlanDestroy capability (see
// withoutDestroyPlans). DECKHOUSE_PROVIDER_SHORTCUTS=off (fastpath.EnvVar)
// serves the framework's server alone, also without the capability.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer { return newProtocolServer(version, fastpath.Enabled()) }
}

// newProtocolServer is the server ProtocolServer serves, with the
// shortcuts in front or not.
func newProtocolServer(version string, shortcuts bool) tfprotov6.ProviderServer {
	p := &DeckhouseProvider{version: version}
	framework := providerserver.NewProtocol6(p)()
	s := framework
	if shortcuts {
		s = fastpath.New(framework, p.resourceData, fastpath.Resource{TypeName: application.TypeName, New: application.NewResource})
	}
	return withListResources(withoutDestroyPlans{ProviderServer: s, identities: applicationIdentities}, framework)
}

// withoutDestroyPlans is a server that does not announce the PlanDestroy
// capability the framework announces: the CLI then plans a destroy itself
// and sends no PlanResourceChange for it. The resources' ModifyPlan returns
// at once on a destroy, so the framework's plan of one was the null state,
// the prior private state and the prior identity. The CLIs' own plan (the
// early return of PlanResourceChange in internal/plugin6/grpc_provider.go
// of OpenTofu 1.12.6 and Terraform 1.11.4) keeps the prior private state,
// which holds the UID the delete's precondition names, and hands it to
// ApplyResourceChange; it plans no identity, so ApplyResourceChange puts
// the prior state's one back (identities).
type withoutDestroyPlans struct {
	tfprotov6.ProviderServer
	identities map[string]*stateIdentity // by resource type
}

func (s withoutDestroyPlans) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.ProviderServer.GetProviderSchema(ctx, req)
	if resp != nil && resp.ServerCapabilities != nil {
		caps := *resp.ServerCapabilities
		caps.PlanDestroy = false
		resp.ServerCapabilities = &caps
	}
	return resp, err
}

func (s withoutDestroyPlans) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	resp, err := s.ProviderServer.GetMetadata(ctx, req)
	if resp != nil && resp.ServerCapabilities != nil {
		caps := *resp.ServerCapabilities
		caps.PlanDestroy = false
		resp.ServerCapabilities = &caps
	}
	return resp, err
}

// ApplyResourceChange gives the delete of a destroy planned without an
// identity the one of its prior state, as the framework's destroy plan
// did: a delete that fails answers with the identity it got, and OpenTofu
// 1.12 and Terraform 1.12 and later store that answer's identity with the
// state they keep (apply in internal/tofu/node_resource_abstract_instance.go
// of OpenTofu, internal/terraform/ of Terraform). Without it a failed
// destroy would leave the state with no identity until the next refresh.
func (s withoutDestroyPlans) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req != nil && req.PlannedIdentity == nil && s.identities[req.TypeName] != nil && isNull(req.PlannedState) && !isNull(req.PriorState) {
		if id, ok := s.identities[req.TypeName].of(req.PriorState); ok {
			r := *req
			r.PlannedIdentity = id
			req = &r
		}
	}
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// isNull reports whether a protocol value is missing or a null object.
func isNull(v *tfprotov6.DynamicValue) bool {
	return v == nil || (len(v.JSON) == 0 && (len(v.MsgPack) == 0 || (len(v.MsgPack) == 1 && v.MsgPack[0] == 0xc0)))
}

// stateIdentity makes a resource's identity from its state: each identity
// attribute is the state's top-level attribute of the same name (so Read,
// Create and Update set it).
type stateIdentity struct {
	new       func() resource.Resource
	once      sync.Once
	state, id tftypes.Type
	names     []string
	types     map[string]tftypes.Type // the identity's attribute types
	err       bool
}

// applicationIdentities are the resource types whose identity
// stateIdentity makes.
var applicationIdentities = map[string]*stateIdentity{application.TypeName: {new: application.NewResource}}

func (si *stateIdentity) init() {
	ctx := context.Background()
	r := si.new()
	ri, ok := r.(resource.ResourceWithIdentity)
	if !ok {
		si.err = true
		return
	}
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	var iresp resource.IdentitySchemaResponse
	ri.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &iresp)
	if sresp.Diagnostics.HasError() || iresp.Diagnostics.HasError() {
		si.err = true
		return
	}
	si.state = sresp.Schema.Type().TerraformType(ctx)
	si.id = iresp.IdentitySchema.Type().TerraformType(ctx)
	obj, ok := si.id.(tftypes.Object)
	if !ok {
		si.err = true
		return
	}
	si.types = obj.AttributeTypes
	for name := range si.types {
		si.names = append(si.names, name)
	}
}

// of returns the identity of a state, or false when the state does not
// decode or lacks a known attribute of the identity.
func (si *stateIdentity) of(state *tfprotov6.DynamicValue) (*tfprotov6.ResourceIdentityData, bool) {
	si.once.Do(si.init)
	if si.err {
		return nil, false
	}
	v, err := state.Unmarshal(si.state)
	if err != nil {
		return nil, false
	}
	var attrs map[string]tftypes.Value
	if v.As(&attrs) != nil {
		return nil, false
	}
	idAttrs := map[string]tftypes.Value{}
	for _, name := range si.names {
		a, ok := attrs[name]
		if !ok || !a.Type().Equal(si.types[name]) || !a.IsKnown() || a.IsNull() {
			return nil, false
		}
		idAttrs[name] = a
	}
	dv, err := tfprotov6.NewDynamicValue(si.id, tftypes.NewValue(si.id, idAttrs))
	if err != nil {
		return nil, false
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}, true
}

// resourceData is what Configure handed to resources, or nil before it ran.
func (p *DeckhouseProvider) resourceData() any {
	if d := p.configured.Load(); d != nil {
		return d
	}
	return nil
}
