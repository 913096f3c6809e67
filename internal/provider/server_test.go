package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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
