package application

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
)

// checkInput is everything the checks need, free of framework types.
type checkInput struct {
	namespace, name  string
	packageName      string
	version          string
	repository       string // "" = resolve from ApplicationPackage
	settings         any
	sensitive        any
	previous         any
	hasPrevious      bool
	allowDestructive bool
	immutableMode    string
	required         bool // plan_checks = "required": what cannot be checked at plan is an error
	// settingsChecks is settings_checks: "warning" turns the settings' problems into warnings.
	settingsChecks string
	fieldManager   string // the resource's field_manager ("" = the provider's)
}

// checkOutput is the verdict of the checks.
type checkOutput struct {
	diags      diag.Diagnostics
	deferred   bool // the checks could not run (warning at plan)
	replace    bool // immutable fields changed in replace mode
	repository string
	effective  map[string]any
}

func checkInputFromModel(plan, prior *applicationModel, settings, sensitive any) checkInput {
	in := checkInput{
		namespace:        plan.Namespace.ValueString(),
		name:             plan.Name.ValueString(),
		packageName:      plan.PackageName.ValueString(),
		version:          plan.PackageVersion.ValueString(),
		settings:         settings,
		sensitive:        sensitive,
		allowDestructive: plan.AllowDestructiveSettingsSwitch.ValueBool(),
		immutableMode:    plan.ImmutableFieldChange.ValueString(),
		settingsChecks:   plan.SettingsChecks.ValueString(),
		fieldManager:     plan.FieldManager.ValueString(),
	}
	if !plan.PackageRepositoryName.IsUnknown() && !plan.PackageRepositoryName.IsNull() {
		in.repository = plan.PackageRepositoryName.ValueString()
	}
	if prior != nil {
		for _, d := range []types.Dynamic{prior.LastAppliedSettings, prior.EffectiveSettings} {
			if d.IsNull() || d.IsUnknown() {
				continue
			}
			if v, known, err := convert.FromDynamic(d); err == nil && known && v != nil {
				in.previous, in.hasPrevious = v, true
				break
			}
		}
	}
	return in
}

// check runs the checks of DP on one Application. At plan (atPlan) anything
// that cannot be read defers the checks with a warning; at apply it is an error.
func (r *Resource) check(ctx context.Context, cl *dpclient.Client, in checkInput, atPlan bool) checkOutput {
	var out checkOutput
	who := fmt.Sprintf("Application %s/%s", in.namespace, in.name)
	deferOrFail := func(summary, detail string) checkOutput {
		if atPlan && in.required {
			out.deferred = true
			out.diags.AddError("Settings not checked at plan: "+summary, detail+` plan_checks = "required" makes this an error.`)
		} else if atPlan {
			out.deferred = true
			out.diags.AddWarning(summary, detail+" The settings are checked at apply, and effective_settings is known after apply.")
		} else {
			out.diags.AddError(summary, detail)
		}
		return out
	}

	// Repository.
	out.repository = in.repository
	if out.repository == "" {
		repos, found, err := cl.AvailableRepositories(ctx, in.packageName)
		switch {
		case err != nil:
			return deferOrFail("Cannot resolve package_repository_name ("+connectionProblem(err)+")", err.Error()+".")
		case !found:
			if atPlan {
				return deferOrFail("Package not found",
					fmt.Sprintf("ApplicationPackage %q does not exist, so package_repository_name of %s cannot be resolved.", in.packageName, who))
			}
			out.diags.AddAttributeError(path.Root("package_name"), "Package not found",
				fmt.Sprintf("ApplicationPackage %q does not exist; set package_repository_name or check package_name.", in.packageName))
			return out
		case len(repos) != 1:
			choices := "none"
			if len(repos) > 0 {
				choices = strings.Join(repos, ", ")
			}
			out.diags.AddAttributeError(path.Root("package_repository_name"), "Choose a package repository",
				fmt.Sprintf("package_repository_name is not set and %d repositories offer package %q (status.availableRepositories of the ApplicationPackage): %s. Set package_repository_name to one of them.",
					len(repos), in.packageName, choices))
			return out
		}
		out.repository = repos[0]
	}

	// Package version.
	apvName := dpapi.PackageVersionName(out.repository, in.packageName, in.version)
	apv, err := cl.PackageVersion(ctx, apvName)
	waited := ""
	if err == nil && !atPlan {
		apv, waited, err = awaitPackageVersion(ctx, cl, apvName, who, apv)
	}
	if err != nil {
		return deferOrFail("Cannot read the package version ("+connectionProblem(err)+")", err.Error()+".")
	}
	if !apv.Ready() || apv.Package == nil {
		return deferOrFail(fmt.Sprintf("Package version %s not available", in.version), apv.NotReadyReason()+"; "+who+" cannot be installed from it yet"+waited+".")
	}
	pkg := apv.Package

	// Grant catalogs.
	catalog := engine.Catalog{}
	fields := pkg.Fields()
	for _, f := range fields {
		if f.GrantableResource == "" {
			continue
		}
		if _, done := catalog[f.GrantableResource]; done {
			continue
		}
		g, err := cl.GrantCatalog(ctx, in.namespace, f.GrantableResource)
		if err != nil {
			return deferOrFail("Cannot read the project grants ("+connectionProblem(err)+")", err.Error()+".")
		}
		if g.Found {
			catalog[f.GrantableResource] = g.Catalog
		}
	}

	merged := in.settings
	if in.sensitive != nil {
		merged = engine.Merge(in.settings, in.sensitive)
	}
	foreign := r.foreignOf(ctx, cl, in) // keys other field managers own: checked, never shown
	if foreign != nil {
		merged = engine.Merge(foreign, merged)
	}
	req := engine.Request{
		Settings:               merged,
		Previous:               in.previous,
		HasPrevious:            in.hasPrevious,
		Catalog:                catalog,
		AllowDestructiveSwitch: in.allowDestructive,
	}
	res := pkg.Evaluate(req)

	// Immutable fields in replace mode: a replacement, not an error.
	if in.hasPrevious && in.immutableMode == immutableModeReplace {
		var names []string
		for _, p := range res.Problems {
			if p.Kind == engine.KindImmutable {
				names = append(names, "settings."+p.Path.String())
			}
		}
		if len(names) > 0 {
			sort.Strings(names)
			out.replace = true
			out.diags.AddAttributeWarning(path.Root("settings"), "Immutable settings changed: the Application will be replaced",
				fmt.Sprintf("%s: %s %s x-deckhouse-immutable, and immutable_field_change = \"replace\", so the Application is deleted and created again with the new settings.",
					who, strings.Join(names, ", "), pluralVerb(len(names))))
			return out
		}
	}

	var inSettings, inSensitive []*engine.Problem
	for _, p := range res.Problems {
		if in.sensitive != nil && problemInSensitive(in.settings, in.sensitive, p.Path) {
			inSensitive = append(inSensitive, p)
		} else {
			inSettings = append(inSettings, p)
		}
	}
	verdict := diagnostics.FromProblems(path.Root("settings"), inSettings)
	verdict.Append(diagnostics.FromProblems(path.Root("sensitive_settings"), inSensitive)...)
	verdict.Append(diagnostics.Switches(path.Root("settings"), res.Switches, in.allowDestructive)...)
	out.diags.Append(settingsVerdict(in.settingsChecks, verdict)...)
	if atPlan && len(res.Skipped) > 0 {
		out.diags.Append(skippedByDocument(in, res.Skipped)...)
	}
	if out.diags.HasError() {
		return out
	}

	// ui-resource-name referents (warnings only, at plan).
	if atPlan {
		out.diags.Append(r.checkReferents(ctx, cl, in.namespace, fields, withoutForeign(res.Effective, foreign))...)
	}

	// Effective settings from settings alone (unknown where settings are).
	out.effective = res.Effective
	if in.sensitive != nil || foreign != nil {
		req.Settings = in.settings
		out.effective = pkg.Evaluate(req).Effective
	}
	if out.effective == nil {
		out.effective = map[string]any{}
	}
	return out
}

func pluralVerb(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// problemInSensitive reports whether the value at p comes from sensitive_settings.
func problemInSensitive(settings, sensitive any, p engine.Path) bool {
	var keys []string
	for _, s := range p {
		if s.IsIndex {
			break
		}
		keys = append(keys, s.Key)
	}
	for i := len(keys); i > 0; i-- {
		if _, ok := lookupPath(sensitive, keys[:i]); ok {
			return true
		}
		if _, ok := lookupPath(settings, keys[:i]); ok {
			return false
		}
	}
	return false
}

// checkReferents warns when a field with x-deckhouse-ui-resource-name names
// an object that does not exist (yet) in the namespace.
func (r *Resource) checkReferents(ctx context.Context, cl *dpclient.Client, namespace string, fields []engine.Field, effective map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, f := range fields {
		if f.ResourceName == nil || f.ResourceName.Kind == "" {
			continue
		}
		var keys []string
		indexed := false
		for _, s := range f.Path {
			if s.IsIndex {
				indexed = true
				break
			}
			keys = append(keys, s.Key)
		}
		if indexed {
			continue
		}
		v, ok := lookupPath(effective, keys)
		name, isString := v.(string)
		if !ok || !isString || name == "" {
			continue
		}
		field := "settings." + f.Path.String()
		got, err := cl.Referent(ctx, f.ResourceName.APIVersion, f.ResourceName.Kind, namespace, name)
		if err != nil {
			diags.AddAttributeWarning(path.Root("settings"), "Referenced object not checked",
				fmt.Sprintf("%s names %s %q; it could not be read in namespace %q: %v.", field, f.ResourceName.Kind, name, namespace, err))
			continue
		}
		if !got.Found {
			diags.AddAttributeWarning(path.Root("settings"), "Referenced object not found",
				fmt.Sprintf("%s names %s %q, which does not exist in namespace %q (x-deckhouse-ui-resource-name). It may be created in the same apply.",
					field, f.ResourceName.Kind, name, namespace))
			continue
		}
		if f.ResourceName.LabelSelector != nil {
			sel, err := selectorFrom(f.ResourceName.LabelSelector)
			if err == nil && !sel.Matches(labels.Set(got.Labels)) {
				diags.AddAttributeWarning(path.Root("settings"), "Referenced object does not match the label selector",
					fmt.Sprintf("%s names %s %q in namespace %q, but its labels do not match the selector %s of x-deckhouse-ui-resource-name.",
						field, f.ResourceName.Kind, name, namespace, sel.String()))
			}
		}
	}
	return diags
}

func selectorFrom(m map[string]any) (labels.Selector, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var ls metav1.LabelSelector
	if err := json.Unmarshal(b, &ls); err != nil {
		return nil, err
	}
	return metav1.LabelSelectorAsSelector(&ls)
}

// skippedByDocument reports the checks skipped for unknown values, at
// settings or sensitive_settings depending on where the unknown value is.
func skippedByDocument(in checkInput, skipped []engine.Skipped) diag.Diagnostics {
	var inSettings, inSensitive []engine.Skipped
	for _, s := range skipped {
		if in.sensitive != nil && problemInSensitive(in.settings, in.sensitive, s.Unknown) {
			inSensitive = append(inSensitive, s)
		} else {
			inSettings = append(inSettings, s)
		}
	}
	diags := diagnostics.Skipped(path.Root("settings"), inSettings, in.required)
	diags.Append(diagnostics.Skipped(path.Root("sensitive_settings"), inSensitive, in.required)...)
	return diags
}
