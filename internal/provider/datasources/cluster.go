package datasources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// cluster is embedded by the data sources that read the cluster: its
// Configure keeps what the provider hands over, and data.Client reaches the
// cluster.
type cluster struct {
	data *providerdata.Data
}

// Configure keeps the provider's data (nil before the provider is
// configured: the framework calls Configure early with no data).
func (c *cluster) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c.data = providerdata.From(req.ProviderData, &resp.Diagnostics)
}

// deferred answers a read with a deferral when the client allows deferred
// actions and the provider configuration is not wholly known (reason:
// provider configuration unknown), and reports whether it did. The state is
// unknown, as the framework answers a deferral of its own: Terraform
// evaluates the references to a deferred data source with the state it gets.
func (c *cluster) deferred(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) bool {
	if !c.data.Defers(req.ClientCapabilities.DeferralAllowed) {
		return false
	}
	resp.State.Raw = tftypes.NewValue(resp.State.Schema.Type().TerraformType(ctx), tftypes.UnknownValue)
	resp.Deferred = &datasource.Deferred{Reason: datasource.DeferredReasonProviderConfigUnknown}
	return true
}

// begin starts a read: it answers a deferral (see deferred), else reads the
// configuration into m and returns the cluster's client. nil: the read ends
// here (deferred, or resp holds why).
func (c *cluster) begin(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse, m any) *dpclient.Client {
	if c.deferred(ctx, req, resp) {
		return nil
	}
	resp.Diagnostics.Append(req.Config.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return nil
	}
	return providerdata.ClusterClient(ctx, c.data, &resp.Diagnostics)
}
