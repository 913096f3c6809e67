package application

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// deferredPlan answers a plan with a deferral (reason: provider
// configuration unknown) when the client allows deferred actions and the
// provider configuration is not wholly known, and reports whether it did.
// Without the client's leave the plan goes on: it plans without the cluster,
// with the warning of unchecked settings.
func (r *Resource) deferredPlan(req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	if !r.data.Defers(req.ClientCapabilities.DeferralAllowed) {
		return false
	}
	resp.Deferred = &resource.Deferred{Reason: resource.DeferredReasonProviderConfigUnknown}
	return true
}

// readWithoutConfig answers a refresh the provider cannot make, and reports
// whether it did. When the client allows deferred actions and the provider
// configuration is not wholly known, the refresh is deferred; when the
// connection is unknown (the cluster's resource changes in the same run, on
// day two), the prior state is kept with a warning, so that the plan goes on
// and the apply runs with the known configuration. Either way the state and
// private state stay as they came, and the identity is the state's.
func (r *Resource) readWithoutConfig(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) bool {
	deferred := r.data.Defers(req.ClientCapabilities.DeferralAllowed)
	if !deferred && !r.data.ConfigUnknown() {
		return false
	}
	var id applicationIdentity
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("namespace"), &id.Namespace)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &id.Name)...)
	if resp.Identity != nil {
		resp.Diagnostics.Append(resp.Identity.Set(ctx, id)...)
	}
	if deferred {
		resp.Deferred = &resource.Deferred{Reason: resource.DeferredReasonProviderConfigUnknown}
		return true
	}
	resp.Diagnostics.AddWarning("Application not refreshed: provider configuration unknown",
		fmt.Sprintf("The provider configuration depends on values known only at apply (the cluster's resource changes in this run), "+
			"so Application %s/%s is not read: the plan keeps the state of the last run, and the apply writes with the known "+
			"configuration. Changes made outside Terraform since then show on the next plan.", id.Namespace.ValueString(), id.Name.ValueString()))
	return true
}
