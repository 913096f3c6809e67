package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/fastpath"
)

// ProtocolServer returns the provider's protocol server: the framework's
// server with the protocol shortcuts of package fastpath in front for
// deckhouse_application, and without the PlanDestroy capability (see
// withoutDestroyPlans). DECKHOUSE_PROVIDER_SHORTCUTS=off (fastpath.EnvVar)
// serves the framework's server alone, also without it.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := &DeckhouseProvider{version: version}
		framework := providerserver.NewProtocol6(p)()
		s := framework
		if fastpath.Enabled() {
			s = fastpath.New(framework, p.resourceData, fastpath.Resource{TypeName: application.TypeName, New: application.NewResource})
		}
		return withListResources(withoutDestroyPlans{s}, framework)
	}
}

// withoutDestroyPlans is a server that does not announce the PlanDestroy
// capability the framework announces: the CLI then plans a destroy itself
// (a null planned state, the prior private state kept as the planned one)
// and sends no PlanResourceChange for it. No resource of the provider has
// anything to say about a destroy's plan (the resources' ModifyPlan returns
// at once on a null plan), and the delete gets the same private state,
// which holds the UID its precondition names: both CLIs copy the prior
// private state into the plan they make (OpenTofu 1.12
// internal/plugin6/grpc_provider.go, PlanResourceChange; Terraform 1.11
// the same file), and hand the planned private state to ApplyResourceChange.
type withoutDestroyPlans struct {
	tfprotov6.ProviderServer
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

// resourceData is what Configure handed to resources, or nil before it ran.
func (p *DeckhouseProvider) resourceData() any {
	if d := p.configured.Load(); d != nil {
		return d
	}
	return nil
}
