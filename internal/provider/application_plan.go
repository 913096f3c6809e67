package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ModifyPlan gives DP's verdict at plan time, as a pipeline with early returns:
//
//  1. destroy: nothing to check;
//  2. unchanged inputs: keep the computed values of the state, read nothing;
//  3. unknown inputs (values known only at apply, provider configuration
//     unknown): effective_settings unknown, checks at apply;
//  4. fetch: repository resolution, the ApplicationPackageVersion (compiled
//     once per process), grant catalogs; anything unreadable defers the checks
//     to apply with a warning;
//  5. checks: schema, CEL (oldSelf on update), grants, immutability, enum
//     switches, ui-resource-name referents;
//  6. computed values: effective_settings from settings alone (never from
//     sensitive_settings).
func (r *ApplicationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// 1. Destroy.
	if req.Plan.Raw.IsNull() {
		return
	}
	// Nothing changed at all (the common case of a refresh): the plan already
	// holds the computed values of the state, so there is nothing to decode,
	// check or set.
	if !req.State.Raw.IsNull() && req.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	var plan applicationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var prior *applicationModel
	if !req.State.Raw.IsNull() {
		prior = &applicationModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
	}
	var configRepo types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("package_repository_name"), &configRepo)...)
	var sensitiveVal types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_settings"), &sensitiveVal)...)
	if resp.Diagnostics.HasError() {
		return
	}
	replacing := prior != nil && (!plan.Name.Equal(prior.Name) || !plan.Namespace.Equal(prior.Namespace) || !plan.PackageName.Equal(prior.PackageName))
	if prior != nil && !replacing && configRepo.IsNull() && plan.PackageRepositoryName.IsUnknown() {
		plan.PackageRepositoryName = prior.PackageRepositoryName
	}

	// 2. Unchanged inputs. An update DP has not applied yet (its wait failed)
	// is planned again: status unknown makes an update of the same settings.
	if prior != nil && !specChanged(&plan, prior) {
		copyComputed(&plan, prior)
		if hasPrivateKey(ctx, req.Private, privateApplyPending) {
			plan.Status = types.ObjectUnknown(statusAttrTypes)
			resp.Diagnostics.AddWarning("Settings not applied by DP yet",
				describe(&plan)+": DP has not applied the settings of the last apply (it rejected them, or the wait "+
					"timed out). This plan applies them again and waits for DP.")
		}
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	defer func() { resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...) }()
	plan.EffectiveSettings = types.DynamicUnknown()
	if prior != nil {
		plan.Status = types.ObjectUnknown(statusAttrTypes)
		plan.LastAppliedSettings = types.DynamicUnknown()
	}

	// 3. Unknown inputs.
	if plan.Namespace.IsUnknown() || plan.PackageName.IsUnknown() || plan.PackageVersion.IsUnknown() ||
		(!configRepo.IsNull() && configRepo.IsUnknown()) || plan.AllowDestructiveSettingsSwitch.IsUnknown() ||
		plan.ImmutableFieldChange.IsUnknown() {
		return
	}
	settings, known, err := fromDynamic(plan.Settings)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("settings"), "Invalid settings", err.Error())
		return
	}
	if !known {
		return
	}
	if _, ok := settings.(map[string]any); settings != nil && !ok {
		resp.Diagnostics.AddAttributeError(path.Root("settings"), "Invalid settings", "settings must be an object (a map of setting names to values).")
		return
	}
	sensitive, known, err := fromDynamic(sensitiveVal)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", err.Error())
		return
	}
	if !known {
		return
	}
	if _, ok := sensitive.(map[string]any); sensitive != nil && !ok {
		resp.Diagnostics.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object (a map of setting names to values).")
		return
	}
	if r.data == nil || r.data.ConfigUnknown() {
		resp.Diagnostics.AddWarning("Settings not checked at plan",
			"The provider configuration is not known yet, so the cluster cannot be read at plan. "+
				"The settings of "+describe(&plan)+" are checked at apply, and effective_settings is known after apply.")
		return
	}
	cl, err := r.data.Client(ctx)
	if err != nil {
		resp.Diagnostics.AddWarning("Settings not checked at plan",
			"Cannot connect to the cluster: "+err.Error()+". The settings of "+describe(&plan)+" are checked at apply.")
		return
	}

	// 4-6. Fetch, checks, computed values.
	in := checkInputFromModel(&plan, prior, settings, sensitive)
	if replacing {
		in.hasPrevious, in.previous = false, nil
	}
	out := r.check(ctx, cl, in, true)
	resp.Diagnostics.Append(out.diags...)
	if out.repository != "" && plan.PackageRepositoryName.IsUnknown() {
		plan.PackageRepositoryName = types.StringValue(out.repository)
	}
	if out.replace {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("settings"))
		return
	}
	if out.deferred || resp.Diagnostics.HasError() {
		return
	}
	plan.EffectiveSettings = toDynamic(out.effective)
}

func describe(m *applicationModel) string {
	return fmt.Sprintf("Application %s/%s", m.Namespace.ValueString(), m.Name.ValueString())
}
