package application

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
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
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// 1. Destroy.
	if req.Plan.Raw.IsNull() {
		return
	}
	// Nothing changed at all (the common case of a refresh): the plan already
	// holds the computed values of the state, so there is nothing to decode,
	// check or set, unless DP has not applied the last update (step 2).
	if !req.State.Raw.IsNull() && req.Plan.Raw.Equal(req.State.Raw) && !hasPrivateKey(ctx, req.Private, privateApplyPending) {
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
	notChecked := func(summary, detail string) {
		if r.checksRequired() {
			resp.Diagnostics.AddError(summary, detail+` plan_checks = "required" makes this an error.`)
			return
		}
		resp.Diagnostics.AddWarning(summary, detail+" The settings are checked at apply, and effective_settings is known after apply.")
	}
	if plan.Namespace.IsUnknown() || plan.PackageName.IsUnknown() || plan.PackageVersion.IsUnknown() ||
		(!configRepo.IsNull() && configRepo.IsUnknown()) || plan.AllowDestructiveSettingsSwitch.IsUnknown() ||
		plan.ImmutableFieldChange.IsUnknown() {
		notChecked("Settings not checked at plan: unknown values",
			"The namespace, package, version or repository of "+describe(&plan)+" is known only at apply, so the plan cannot read the package version.")
		return
	}
	settings, _, err := convert.FromDynamicPartial(plan.Settings)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("settings"), "Invalid settings", err.Error())
		return
	}
	if _, ok := settings.(map[string]any); settings != nil && !ok && settings != (engine.Unknown{}) {
		resp.Diagnostics.AddAttributeError(path.Root("settings"), "Invalid settings", "settings must be an object (a map of setting names to values).")
		return
	}
	sensitive, _, err := convert.FromDynamicPartial(sensitiveVal)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object of settings.")
		return
	}
	if _, ok := sensitive.(map[string]any); sensitive != nil && !ok && sensitive != (engine.Unknown{}) {
		resp.Diagnostics.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object (a map of setting names to values).")
		return
	}
	// Every diagnostic of this plan from here on has the values of
	// sensitive_settings redacted (a rule's own message or a referent's name
	// could hold one).
	secrets := newRedactor(sensitive)
	before := len(resp.Diagnostics)
	defer func() {
		resp.Diagnostics = append(resp.Diagnostics[:before:before], secrets.diagnostics(resp.Diagnostics[before:])...)
	}()
	resp.Diagnostics.Append(sensitiveGuards(&plan, prior, settings, sensitive, privatePaths(ctx, req.Private))...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil || r.data.ConfigUnknown() {
		notChecked("Settings not checked at plan: provider configuration unknown",
			"The provider configuration is not known yet (it depends on values known only at apply), so the cluster cannot be read at plan for "+describe(&plan)+".")
		return
	}
	cl, err := r.data.Client(ctx)
	if err != nil {
		notChecked("Settings not checked at plan: "+connectionProblem(err), "Cannot connect to the cluster to check "+describe(&plan)+": "+err.Error()+".")
		return
	}

	// 4-6. Fetch, checks, computed values.
	in := checkInputFromModel(&plan, prior, settings, sensitive)
	in.required = r.checksRequired()
	if replacing {
		in.hasPrevious, in.previous, in.hasPreviousRaw = false, nil, false
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
	plan.EffectiveSettings = convert.ToDynamic(out.effective)
}

// checksRequired reports whether plan_checks = "required": every check the
// plan cannot run is an error instead of a warning.
func (r *Resource) checksRequired() bool {
	return r.data != nil && r.data.PlanChecks == providerdata.PlanChecksRequired
}

// connectionProblem classifies why the cluster cannot be reached, telling
// a misconfiguration from a server that is unavailable for now.
func connectionProblem(err error) string {
	var cfgErr *dpclient.ConfigError
	switch {
	case errors.Is(err, dpclient.ErrNoCluster):
		return "no cluster configured"
	case errors.Is(err, fs.ErrNotExist):
		return "kubeconfig file missing"
	case errors.Is(err, providerdata.ErrConfigUnknown):
		return "provider configuration unknown"
	case apierrors.IsForbidden(err):
		return "access denied (RBAC)"
	case apierrors.IsUnauthorized(err):
		return "credentials refused"
	case errors.As(err, &cfgErr):
		return "cluster configuration invalid"
	case dpclient.Unavailable(err):
		return "cluster unavailable"
	}
	return "cluster not readable"
}

// privatePaths returns the sensitive paths recorded in the private state.
func privatePaths(ctx context.Context, private privateGetter) [][]string {
	if private == nil {
		return nil
	}
	raw, _ := private.GetKey(ctx, privateSensitivePaths)
	return decodePaths(raw)
}

// sensitiveGuards refuses two plans that would lose or hide secrets: a key
// given in both settings and sensitive_settings (a permanent difference),
// and an update whose sensitive_settings lacks a path an earlier apply wrote
// from it while sensitive_settings_version is unchanged (server-side apply
// would delete the secret from the cluster without the plan showing it).
func sensitiveGuards(plan, prior *applicationModel, settings, sensitive any, recorded [][]string) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, p := range leafPaths(sensitive) {
		for i := len(p); i > 0; i-- {
			v, ok := lookupPath(settings, p[:i])
			if !ok {
				continue
			}
			if _, isObject := v.(map[string]any); isObject && i < len(p) {
				break
			}
			where := strings.Join(p[:i], ".")
			diags.AddAttributeError(path.Root("sensitive_settings"), "Setting given twice: "+where,
				fmt.Sprintf("%s is set in both settings and sensitive_settings. Give each setting in one of them: a secret in sensitive_settings only.", where))
			break
		}
	}
	if prior == nil || len(recorded) == 0 || !plan.SensitiveSettingsVersion.Equal(prior.SensitiveSettingsVersion) || sensitive == (engine.Unknown{}) {
		return diags
	}
	var missing []string
	for _, p := range recorded {
		if _, ok := lookupPath(sensitive, p); !ok && !underUnknown(sensitive, p) {
			missing = append(missing, strings.Join(p, "."))
		}
	}
	if len(missing) > 0 {
		diags.AddAttributeError(path.Root("sensitive_settings"), "Secrets would be removed",
			fmt.Sprintf("%s wrote %s from sensitive_settings, which this configuration no longer gives (is a variable of sensitive_settings "+
				"missing in this run?). Applying would delete them from the Application. To remove them on purpose, "+
				"leave them out and change sensitive_settings_version.", describe(plan), strings.Join(missing, ", ")))
	}
	return diags
}

// underUnknown reports whether p leads into an unknown part of doc.
func underUnknown(doc any, p []string) bool {
	cur := doc
	for _, k := range p {
		if cur == (engine.Unknown{}) {
			return true
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		cur, ok = m[k]
		if !ok {
			return false
		}
	}
	return cur == (engine.Unknown{})
}

func describe(m *applicationModel) string {
	return fmt.Sprintf("Application %s/%s", m.Namespace.ValueString(), m.Name.ValueString())
}
