package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// The DP resources the provider reads and writes.
var applicationGVR = dpapi.ApplicationGVR

// packageVersionName is the name DP gives an ApplicationPackageVersion.
func packageVersionName(repository, pkg, version string) string {
	return dpapi.PackageVersionName(repository, pkg, version)
}

// providerDataFrom is the Configure step of every cluster resource and data
// source: the provider's data, or nil before the provider is configured (the
// framework calls Configure early with no data).
func providerDataFrom(data any, diags *diag.Diagnostics) *ProviderData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*ProviderData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *ProviderData, got %T", data))
		return nil
	}
	return pd
}

// logLine sends a line of the cluster client to the provider's log (INFO:
// waits report progress at the default level of TF_LOG=INFO).
func logLine(ctx context.Context, msg string, fields map[string]any) {
	tflog.Info(ctx, msg, fields)
}

// clusterClient returns the provider's cluster client, or adds an error
// saying why there is none.
func clusterClient(ctx context.Context, data *ProviderData, diags *diag.Diagnostics) *dpclient.Client {
	if data == nil {
		diags.AddError("Provider not configured",
			"The deckhouse provider was not configured before this resource or data source was used.")
		return nil
	}
	cl, err := data.Client(ctx)
	if err != nil {
		diags.AddError("Cannot connect to the cluster", err.Error())
		return nil
	}
	return cl
}
