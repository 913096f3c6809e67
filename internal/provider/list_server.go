package provider

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// listServer serves the list resource RPCs (ValidateListResourceConfig,
// ListResource) of the framework's server beside a server that does not
// expose them, such as the protocol shortcuts, which answer only resource
// RPCs. tf6server serves list resources only from a server that implements
// tfprotov6.ProviderServerWithListResource.
type listServer struct {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
}

// withListResources returns s with the list resource RPCs of framework,
// or s itself when it serves them already or framework does not.
func withListResources(s, framework tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	if _, ok := s.(tfprotov6.ProviderServerWithListResource); ok {
		return s
	}
	lr, ok := framework.(tfprotov6.ListResourceServer)
	if !ok {
		return s
	}
	return listServer{ProviderServer: s, ListResourceServer: lr}
}

var _ tfprotov6.ProviderServerWithListResource = listServer{}
