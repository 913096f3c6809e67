package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
)

func main() {
	if err := tf6server.Serve("registry.terraform.io/deckhouse/deckhouse", newServer); err != nil {
		log.Fatal(err)
	}
}

// schemaProvider is a framework provider with the resource alone: it gives
// the noop server its schema once, at start.
type schemaProvider struct{}

func (schemaProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "deckhouse"
}

func (schemaProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{"config_path": schema.StringAttribute{Optional: true}}}
}

func (schemaProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (schemaProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{application.NewResource}
}

func (schemaProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// server answers every RPC of a plan, apply, refresh or destroy without
// work; the rest (metadata, unused RPCs) goes to the framework.
type server struct {
	tfprotov6.ProviderServer
	schema *tfprotov6.GetProviderSchemaResponse
	types  map[string]tftypes.Type // resource type name -> state type
}

func newServer() tfprotov6.ProviderServer {
	framework := providerserver.NewProtocol6(schemaProvider{})()
	resp, err := framework.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(resp.Diagnostics) > 0 {
		log.Fatalf("schema: %v %v", err, resp.Diagnostics)
	}
	s := &server{ProviderServer: framework, schema: resp, types: map[string]tftypes.Type{}}
	for name, rs := range resp.ResourceSchemas {
		s.types[name] = rs.ValueType()
	}
	return s
}

func (s *server) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.schema, nil
}

func (s *server) GetResourceIdentitySchemas(context.Context, *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return &tfprotov6.GetResourceIdentitySchemasResponse{IdentitySchemas: map[string]*tfprotov6.ResourceIdentitySchema{}}, nil
}

func (s *server) ValidateProviderConfig(_ context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (s *server) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (s *server) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}

// UpgradeResourceState decodes the stored JSON state, as every provider must.
func (s *server) UpgradeResourceState(_ context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	typ, ok := s.types[req.TypeName]
	if !ok || req.RawState == nil {
		return &tfprotov6.UpgradeResourceStateResponse{}, nil
	}
	val, err := req.RawState.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(typ, val)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
}

func (s *server) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}, nil
}

func (s *server) PlanResourceChange(_ context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate}, nil
}

func (s *server) ApplyResourceChange(_ context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState, Private: req.PlannedPrivate}, nil
}
