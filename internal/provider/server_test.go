package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/fastpath"
)

// The shortcuts answer for a configured provider only and know of no
// deferral: Configure must never defer, also with an unknown configuration.
func TestShortcuts_ProviderNeverDefers(t *testing.T) {
	ctx := context.Background()
	p := &DeckhouseProvider{version: "test"}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["host"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{
		Config:             tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, attrs)},
		ClientCapabilities: provider.ConfigureProviderClientCapabilities{DeferralAllowed: true},
	}, &resp)
	if resp.Deferred != nil {
		t.Fatal("Configure deferred: the protocol shortcuts do not handle a provider deferral")
	}
}

// The provider does not announce the PlanDestroy capability, with the
// shortcuts on or off, in either answer the CLIs read capabilities from:
// the CLIs then plan destroys themselves and send no PlanResourceChange for
// them. Every other capability is the framework's.
func TestProtocolServer_DoesNotAnnouncePlanDestroy(t *testing.T) {
	ctx := context.Background()
	framework := providerserver.NewProtocol6(&DeckhouseProvider{version: "test"})()
	fwSchema, err := framework.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || fwSchema.ServerCapabilities == nil {
		t.Fatalf("framework schema: %v", err)
	}
	for _, shortcuts := range []string{"", "off"} {
		t.Run("shortcuts "+shortcuts, func(t *testing.T) {
			t.Setenv(fastpath.EnvVar, shortcuts)
			s := ProtocolServer("test")()
			schema, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			meta, err := s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
			if err != nil {
				t.Fatal(err)
			}
			want := *fwSchema.ServerCapabilities
			want.PlanDestroy = false
			for name, got := range map[string]*tfprotov6.ServerCapabilities{"GetProviderSchema": schema.ServerCapabilities, "GetMetadata": meta.ServerCapabilities} {
				if got == nil || *got != want {
					t.Errorf("%s capabilities %+v, want %+v", name, got, want)
				}
			}
			if _, ok := s.(tfprotov6.ProviderServerWithListResource); !ok {
				t.Error("the server does not serve list resources")
			}
		})
	}
}
