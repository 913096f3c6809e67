package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/fastpath"
)

// ProtocolServer returns the provider's protocol server: the framework's
// server with the protocol shortcuts of package fastpath in front for
// deckhouse_application. DECKHOUSE_PROVIDER_SHORTCUTS=off (fastpath.EnvVar)
// serves the framework's server alone.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := &DeckhouseProvider{version: version}
		framework := providerserver.NewProtocol6(p)()
		if !fastpath.Enabled() {
			return framework
		}
		return withListResources(fastpath.New(framework, p.resourceData, fastpath.Resource{TypeName: application.TypeName, New: application.NewResource}), framework)
	}
}

// resourceData is what Configure handed to resources, or nil before it ran.
func (p *DeckhouseProvider) resourceData() any {
	if d := p.configured.Load(); d != nil {
		return d
	}
	return nil
}
