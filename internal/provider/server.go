package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/protocol"
)

// ProtocolServer returns the provider's protocol server: the framework's
// server behind package protocol (its shortcuts for deckhouse_application,
// destroy plans left to the CLIs, the list RPCs).
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer { return newProtocolServer(version, true) }
}

// newProtocolServer is the server ProtocolServer serves, with the shortcuts
// for deckhouse_application in front or none (DECKHOUSE_PROVIDER_SHORTCUTS
// turns them off either way).
func newProtocolServer(version string, shortcuts bool) tfprotov6.ProviderServer {
	p := &DeckhouseProvider{version: version}
	framework := providerserver.NewProtocol6(p)()
	// The framework's server serves the list RPCs too, and the plugin server
	// serves them only from one that implements them all; a framework
	// without them would be served alone.
	lists, ok := framework.(tfprotov6.ProviderServerWithListResource)
	if !ok {
		return framework
	}
	return protocol.New(lists, p.resourceData, protocol.Resource{TypeName: application.TypeName, New: application.NewResource, Off: !shortcuts})
}

// resourceData is what Configure handed to resources, or nil before it ran.
func (p *DeckhouseProvider) resourceData() any {
	if d := p.configured.Load(); d != nil {
		return d
	}
	return nil
}
