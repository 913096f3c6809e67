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
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// ModifyPlan gives DP's verdict at plan time, as a pipeline with early returns:
//
//  1. destroy: nothing to check; a provider configuration not wholly known,
//     with a client that allows deferred actions: a deferral;
//  2. unchanged inputs: keep the computed values of the state, read nothing
//     (the secret-removal guard still runs when the update writes anyway);
//  3. unknown inputs (values known only at apply, provider configuration
//     unknown): effective_settings unknown, checks at apply;
//  4. fetch: repository resolution, the ApplicationPackageVersion (compiled
//     once per process), grant catalogs; anything unreadable defers the checks
//     to apply with a warning;
//  5. checks: schema, CEL (oldSelf on an update that keeps the installed
//     version: see versionChanges), grants, immutability, enum switches,
//     ui-resource-name referents;
//  6. computed values: effective_settings from settings alone (never from
//     sensitive_settings), with the project defaults DP will inject (see
//     grantdefaults.go for a default that changes before apply); unknown
//     while any part of settings is.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// 1. Destroy.
	if req.Plan.Raw.IsNull() || r.deferredPlan(req, resp) {
		return
	}
	priv := readPrivate(ctx, req.Private)
	// Nothing changed at all (the common case of a refresh): the plan already
	// holds the computed values of the state, so there is nothing to decode,
	// check or set, unless DP has not applied the last update (step 2).
	if !req.State.Raw.IsNull() && req.Plan.Raw.Equal(req.State.Raw) && !priv.ApplyPending {
		return
	}
	in, diags := decodePlanRequest(ctx, req)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	in.private = priv
	out := r.planChange(ctx, in)
	resp.Diagnostics.Append(out.diags...)
	if out.replace {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("settings"))
	}
	resp.Diagnostics.Append(setModel(ctx, &resp.Plan, in.plan)...)
}

// planRequest is a plan's input decoded from the framework's request.
type planRequest struct {
	plan       *applicationModel
	prior      *applicationModel // nil for a create
	configRepo types.String
	sensitive  types.Dynamic
	private    privateState
}

// planResult is what a plan adds to the response beside the planned model.
type planResult struct {
	diags   diag.Diagnostics
	replace bool
}

func decodePlanRequest(ctx context.Context, req resource.ModifyPlanRequest) (planRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := planRequest{plan: &applicationModel{}}
	diags.Append(getModel(ctx, req.Plan, in.plan)...)
	if !req.State.Raw.IsNull() {
		in.prior = &applicationModel{}
		diags.Append(getModel(ctx, req.State, in.prior)...)
	}
	diags.Append(req.Config.GetAttribute(ctx, path.Root("package_repository_name"), &in.configRepo)...)
	diags.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_settings"), &in.sensitive)...)
	return in, diags
}

// planChange plans a create or an update into in.plan.
func (r *Resource) planChange(ctx context.Context, in planRequest) planResult {
	var out planResult
	plan, prior := in.plan, in.prior
	replacing := prior != nil && (!plan.Name.Equal(prior.Name) || !plan.Namespace.Equal(prior.Namespace) || !plan.PackageName.Equal(prior.PackageName))
	if prior != nil && !replacing && in.configRepo.IsNull() && plan.PackageRepositoryName.IsUnknown() {
		plan.PackageRepositoryName = prior.PackageRepositoryName
	}
	sensitive, diags := decodeSensitive(in.sensitive, true)
	out.diags.Append(diags...)
	if out.diags.HasError() {
		return out
	}

	// 2. Unchanged inputs. An update DP has not applied yet (its wait failed)
	// is planned again: status unknown makes an update of the same settings.
	if prior != nil && !specChanged(plan, prior) {
		copyComputed(plan, prior)
		if in.private.ApplyPending {
			plan.Status = appstatus.ResourceUnknown()
			out.diags.AddWarning("Settings not applied by DP yet",
				describe(plan)+": DP has not applied the settings of the last apply (it rejected them, or the wait "+
					"timed out, or the reply to the write was lost). This plan applies them again and waits for DP.")
		}
		if in.private.ApplyPending || writesMetadata(plan, prior) {
			// The update sends the whole apply configuration again: without
			// a secret it wrote, server-side apply deletes that secret.
			out.diags.Append(removalGuard(plan, prior, sensitive, in.private, r.checksRequired())...)
		}
		return out
	}
	plan.EffectiveSettings = types.StringUnknown()
	if prior != nil {
		plan.Status = appstatus.ResourceUnknown()
		plan.LastAppliedSettings = types.StringUnknown()
	}
	r.planChecks(ctx, in, sensitive, replacing, &out)
	return out
}

// planChecks runs steps 3 to 6 of a plan whose inputs changed.
func (r *Resource) planChecks(ctx context.Context, in planRequest, sensitive any, replacing bool, out *planResult) {
	plan, prior := in.plan, in.prior
	// 3. Unknown inputs.
	notChecked := func(summary, detail string, cause error) {
		if r.checksRequired() {
			addReadError(&out.diags, readFailure{summary: summary, detail: detail, err: cause, errorNote: requiredNote, kept: notCheckedKept})
			return
		}
		out.diags.AddWarning(summary, detail+" The settings are checked at apply, and effective_settings is known after apply.")
	}
	if plan.Namespace.IsUnknown() || plan.PackageName.IsUnknown() || plan.PackageVersion.IsUnknown() ||
		(!in.configRepo.IsNull() && in.configRepo.IsUnknown()) || plan.AllowDestructiveSettingsSwitch.IsUnknown() ||
		plan.ImmutableFieldChange.IsUnknown() {
		notChecked("Settings not checked at plan: unknown values",
			"The namespace, package, version or repository of "+describe(plan)+" is known only at apply, so the plan cannot read the package version.", nil)
		return
	}
	settings, settingsKnown, err := convert.FromDynamicPartial(plan.Settings)
	if err != nil {
		out.diags.AddAttributeError(path.Root("settings"), "Invalid settings", err.Error())
		return
	}
	if _, ok := settings.(map[string]any); settings != nil && !ok && settings != (engine.Unknown{}) {
		out.diags.AddAttributeError(path.Root("settings"), "Invalid settings", "settings must be an object (a map of setting names to values).")
		return
	}
	// Every diagnostic of this plan from here on has the values of
	// sensitive_settings redacted (a rule's own message or a referent's name
	// could hold one).
	secrets := newRedactor(sensitive)
	var diags diag.Diagnostics
	defer func() { out.diags.Append(secrets.Diagnostics(diags)...) }()
	diags.Append(givenTwice(settings, sensitive)...)
	if prior != nil {
		diags.Append(removalGuard(plan, prior, sensitive, in.private, r.checksRequired())...)
	}
	if diags.HasError() {
		return
	}
	if r.data == nil || r.data.ConfigUnknown() {
		notChecked("Settings not checked at plan: provider configuration unknown",
			"The provider configuration is not known yet (it depends on values known only at apply), so the cluster cannot be read at plan for "+describe(plan)+".", nil)
		return
	}
	cl, err := r.data.Client(ctx)
	if err != nil {
		notChecked("Settings not checked at plan: "+connectionProblem(err), "Cannot connect to the cluster to check "+describe(plan)+": "+err.Error()+".", err)
		return
	}

	// 4-6. Fetch, checks, computed values.
	ci := checkInputFromModel(plan, prior, settings, sensitive)
	ci.required = r.checksRequired()
	if replacing {
		ci.hasPrevious, ci.previous, ci.hasPreviousRaw = false, nil, false
	}
	if prior != nil && !replacing {
		imported, err := planPrevious(ctx, cl, in, sensitive, &ci)
		if err != nil {
			notChecked("Settings not checked at plan: "+connectionProblem(err), "Cannot read "+describe(plan)+
				" for the settings DP applied last, which the update checks compare with after an import: "+err.Error()+".", err)
			return
		}
		if imported {
			// Any value of an imported Application may be a secret.
			secrets = newRedactor(sensitive, ci.previous)
		}
	}
	res := r.checkAtPlan(ctx, cl, ci)
	secrets = secrets.WithKeys(undeclaredKeys(sensitive, res.declared))
	diags.Append(res.diags...)
	if res.repository != "" && plan.PackageRepositoryName.IsUnknown() {
		plan.PackageRepositoryName = types.StringValue(res.repository)
	}
	if res.replace {
		out.replace = true
		return
	}
	if res.deferred || diags.HasError() || !settingsKnown {
		// A part of settings known only at apply: the checks ran on what
		// is known, and effective_settings is known after apply (a known
		// document now would differ from the apply's).
		return
	}
	plan.EffectiveSettings = convert.ToJSONString(res.effective)
}

// planPrevious completes the previous document of an update's checks (see
// previous.go): read from the cluster after an import (imported is true),
// or with the secret paths unknown in strict mode.
func planPrevious(ctx context.Context, cl *dpclient.Client, in planRequest, sensitive any, ci *checkInput) (imported bool, err error) {
	switch {
	case in.private.Imported:
		return true, previousFromCluster(ctx, cl, ci)
	case ci.required && ci.hasPrevious:
		ci.previous = withUnknownSecrets(ci.previous, sensitive, in.private.SensitivePaths,
			appSalt(in.prior.Namespace.ValueString(), in.prior.Name.ValueString()))
	}
	return false, nil
}

// writesMetadata reports whether an update with an unchanged spec writes
// the Application anyway: its labels, annotations, field manager or
// conflict mode changed.
func writesMetadata(plan, prior *applicationModel) bool {
	return changed(plan, prior, changeMetadata, changeRewrite)
}

// decodeSensitive decodes sensitive_settings (partly unknown at plan).
func decodeSensitive(v types.Dynamic, partial bool) (any, diag.Diagnostics) {
	var diags diag.Diagnostics
	var sensitive any
	var err error
	if partial {
		sensitive, _, err = convert.FromDynamicPartial(v)
	} else {
		sensitive, _, err = convert.FromDynamic(v)
	}
	if err != nil {
		diags.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object of settings.")
		return nil, diags
	}
	if _, ok := sensitive.(map[string]any); sensitive != nil && !ok && sensitive != (engine.Unknown{}) {
		diags.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object (a map of setting names to values).")
		return nil, diags
	}
	return sensitive, diags
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
	case dpclient.Classify(err).Unavailable():
		return "cluster unavailable"
	}
	return "cluster not readable"
}

// givenTwice refuses a key given in both settings and sensitive_settings (a
// permanent difference).
func givenTwice(settings, sensitive any) diag.Diagnostics {
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
	return diags
}

// removalGuard refuses an update that would delete a secret an earlier write
// took from sensitive_settings: server-side apply removes every field of its
// field manager that the new apply configuration leaves out, so a run in
// which sensitive_settings lacks a recorded path (a variable not given, or
// given as null) would delete that secret from the Application without the
// plan showing it. Only a change of sensitive_settings_version removes
// secrets on purpose. An unknown sensitive_settings_version (at plan) or an
// unknown part of sensitive_settings cannot be judged yet: the plan warns
// (an error with plan_checks = "required"), and apply, where both are known,
// runs the guard again before it writes.
func removalGuard(plan, prior *applicationModel, sensitive any, priv privateState, required bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if prior == nil || len(priv.SensitivePaths) == 0 {
		return diags
	}
	versionUnknown := plan.SensitiveSettingsVersion.IsUnknown()
	if !versionUnknown && !plan.SensitiveSettingsVersion.Equal(prior.SensitiveSettingsVersion) {
		return diags
	}
	salt := appSalt(prior.Namespace.ValueString(), prior.Name.ValueString())
	var missing []string
	for _, sp := range priv.SensitivePaths {
		if _, v, ok := sp.resolve(sensitive, salt); (!ok || v == nil) && !sp.underUnknown(sensitive, salt) {
			missing = append(missing, sp.display())
		}
	}
	switch {
	case len(missing) == 0:
	case !versionUnknown:
		diags.AddAttributeError(path.Root("sensitive_settings"), "Secrets would be removed",
			fmt.Sprintf("%s wrote %s from sensitive_settings, which this configuration no longer gives (is a variable of sensitive_settings "+
				"missing in this run, or null?). Applying would delete them from the Application. To remove them on purpose, "+
				"leave them out and change sensitive_settings_version.", describe(plan), strings.Join(missing, ", ")))
	default:
		detail := fmt.Sprintf("%s wrote %s from sensitive_settings, which this configuration no longer gives, and "+
			"sensitive_settings_version is known only at apply. Apply refuses to write unless sensitive_settings_version "+
			"has changed by then.", describe(plan), strings.Join(missing, ", "))
		if required {
			diags.AddAttributeError(path.Root("sensitive_settings"), "Secret removal not checked at plan", detail+` plan_checks = "required" makes this an error.`)
		} else {
			diags.AddAttributeWarning(path.Root("sensitive_settings"), "Secret removal checked at apply", detail)
		}
	}
	return diags
}

// underUnknown reports whether sp leads into an unknown part of doc.
func (sp sensitivePath) underUnknown(doc any, salt string) bool {
	cur := doc
	for _, seg := range sp {
		if cur == (engine.Unknown{}) {
			return true
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		plain, _, found := sensitivePath{seg}.resolve(m, salt)
		if !found {
			return false
		}
		cur = m[plain[0]]
	}
	return cur == (engine.Unknown{})
}

func describe(m *applicationModel) string {
	return fmt.Sprintf("Application %s/%s", m.Namespace.ValueString(), m.Name.ValueString())
}
