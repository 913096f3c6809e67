package ephemerals

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/datasources"
)

var (
	_ ephemeral.EphemeralResource              = &Application{}
	_ ephemeral.EphemeralResourceWithConfigure = &Application{}
)

// applicationDescription is the page of ephemeral "deckhouse_application";
// its attributes are those of the data source.
const applicationDescription = "Reads one existing Application (`deckhouse.io/v1alpha1`) by namespace and name, as the " +
	"`deckhouse_application` data source does, without storing anything: the CLI opens it during each plan and " +
	"apply, and its values are in no state or plan file. Use it where a configuration reads secrets from an " +
	"Application's settings, effective settings or status: for a provider configuration, a write-only argument " +
	"(such as `sensitive_settings` of another `deckhouse_application`) or a `check` block. Requires Terraform 1.10 " +
	"or later, or OpenTofu 1.11 or later. An Application that does not exist is an error.\n\n" +
	"Its attributes and their values are those of the data source. `settings`, `effective_settings` and " +
	"`last_applied_settings` are also sensitive, so the CLI does not print them; DP's texts in `status` are " +
	"redacted of every value of `spec.settings`."

// NewApplication returns ephemeral "deckhouse_application".
func NewApplication() ephemeral.EphemeralResource {
	return &Application{source: datasources.NewApplication()}
}

// Application is ephemeral "deckhouse_application": the data source
// deckhouse_application, whose Configure and Read it runs, opened as an
// ephemeral resource.
type Application struct {
	source datasource.DataSource
}

func (a *Application) Metadata(ctx context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	var md datasource.MetadataResponse
	a.source.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: req.ProviderTypeName}, &md)
	resp.TypeName = md.TypeName
}

// sourceSchema is the data source's schema.
func (a *Application) sourceSchema(ctx context.Context) datasource.SchemaResponse {
	var resp datasource.SchemaResponse
	a.source.Schema(ctx, datasource.SchemaRequest{}, &resp)
	return resp
}

func (a *Application) Schema(ctx context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	ds := a.sourceSchema(ctx)
	resp.Diagnostics.Append(ds.Diagnostics...)
	s, err := schemaOf(ds.Schema, applicationDescription)
	if err != nil {
		resp.Diagnostics.AddError("Cannot build the schema of ephemeral deckhouse_application", err.Error())
		return
	}
	resp.Schema = s
}

// Configure hands the provider's data to the data source.
func (a *Application) Configure(ctx context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	c, ok := a.source.(datasource.DataSourceWithConfigure)
	if !ok {
		return
	}
	var cr datasource.ConfigureResponse
	c.Configure(ctx, datasource.ConfigureRequest{ProviderData: req.ProviderData}, &cr)
	resp.Diagnostics.Append(cr.Diagnostics...)
}

// Open reads the Application with the data source's Read. Both schemas have
// the same type, so the configuration is the data source's as it comes and
// the data source's result is the ephemeral result.
func (a *Application) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	ds := a.sourceSchema(ctx)
	resp.Diagnostics.Append(ds.Diagnostics...)
	if resp.Diagnostics.HasError() {
		return
	}
	read := datasource.ReadResponse{State: tfsdk.State{Schema: ds.Schema, Raw: req.Config.Raw.Copy()}}
	a.source.Read(ctx, datasource.ReadRequest{
		Config:             tfsdk.Config{Schema: ds.Schema, Raw: req.Config.Raw},
		ClientCapabilities: datasource.ReadClientCapabilities{DeferralAllowed: req.ClientCapabilities.DeferralAllowed},
	}, &read)
	resp.Diagnostics.Append(read.Diagnostics...)
	if resp.Diagnostics.HasError() {
		return
	}
	if read.Deferred != nil { // the data source defers for one reason only; its state is unknown then
		resp.Deferred = &ephemeral.Deferred{Reason: ephemeral.DeferredReasonProviderConfigUnknown}
	}
	resp.Result.Raw = read.State.Raw
}
