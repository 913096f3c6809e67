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
	previousIsRaw    bool // previous is spec.settings, not DP's effective settings
	previousRaw      any  // oldSelf: see previousRawSettings
	hasPreviousRaw   bool
	versionChange    bool // the update changes the installed version: no oldSelf rule (versionChanges)
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
	declared   declaredFunc // the properties of the settings schema (nil when it was not read)
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
		// DP's record, which the state holds as effective_settings alone
		// when the two are equal (lastAppliedStored).
		for _, d := range []types.String{prior.LastAppliedSettings, prior.EffectiveSettings} {
			if v, known, err := convert.FromJSONString(d); err == nil && known && v != nil {
				in.previous, in.hasPrevious = v, true
				break
			}
		}
		in.previousRaw, in.hasPreviousRaw = previousRawSettings(plan, prior, sensitive)
		in.versionChange = versionChanges(installedVersion(prior.Status), in.version)
	}
	return in
}

// versionChanges reports whether an update to version leaves the version DP
// has installed: DP's Application webhook runs the oldSelf rules only while
// status.currentVersion exists and equals spec.packageVersion (DP's settings
// page, SETTINGS.md at commit 2257e81d, and its webhook's test
// TestSettingsAreValidatedOnlyByAPVWhileVersionChanges). So nothing installed
// (installed "": the install has not finished, or failed) counts as a change
// too, and the oldSelf rules do not run.
func versionChanges(installed, version string) bool {
	return installed == "" || installed != version
}

// installedVersion is status.installed_version of a status attribute ("" when
// unknown, null or absent).
func installedVersion(status types.Object) string {
	v, ok := status.Attributes()["installed_version"].(types.String)
	if !ok {
		return ""
	}
	return v.ValueString()
}

// previousRawSettings is what oldSelf is bound to: the settings as the user
// wrote them, as DP last applied them: the prior state's settings when the
// prior status says ConfigurationApplied is True (DP applied them), with the
// values of sensitive_settings when sensitive_settings_version did not
// change (then they are the values applied last time; when it changed the
// old sensitive values are not known and are left out, so a rule reading
// oldSelf there sees a missing key and passes at plan). After a rejected or
// pending update the state holds settings DP did not apply, so nothing is
// returned and oldSelf falls back to the last applied configuration.
func previousRawSettings(plan, prior *applicationModel, sensitive any) (any, bool) {
	if prior.Settings.IsUnknown() || !configurationApplied(prior.Status) {
		return nil, false
	}
	raw, known, err := convert.FromDynamic(prior.Settings)
	if err != nil || !known {
		return nil, false
	}
	if raw == nil {
		raw = map[string]any{}
	}
	if sensitive != nil && plan.SensitiveSettingsVersion.Equal(prior.SensitiveSettingsVersion) {
		raw = engine.Merge(raw, sensitive)
	}
	return raw, true
}

// configurationApplied reports whether a status attribute says the
// ConfigurationApplied condition is True.
func configurationApplied(status types.Object) bool {
	applied, ok := status.Attributes()["configuration_applied"].(types.Object)
	if !ok {
		return false
	}
	st, ok := applied.Attributes()["status"].(types.String)
	return ok && st.ValueString() == "True"
}

// checkStage is what differs between the checks of a plan and of an apply.
type checkStage struct {
	// unreadable reports cluster data the checks cannot read.
	unreadable func(out *checkOutput, summary, detail string, cause error)
	// packageMissing reports an ApplicationPackage that does not exist.
	packageMissing func(out *checkOutput, pkg, who string)
	// atPlan lists checks skipped for unknown values and looks up the
	// objects ui-resource-name fields name (warnings only).
	atPlan bool
}

// checkAtPlan runs DP's checks at plan: anything that cannot be read
// defers the checks to apply with a warning (an error with plan_checks =
// "required").
func (r *Resource) checkAtPlan(ctx context.Context, cl *dpclient.Client, in checkInput) checkOutput {
	return r.runChecks(ctx, cl, in, checkStage{
		unreadable: func(out *checkOutput, summary, detail string, cause error) {
			out.deferred = true
			if in.required {
				addReadError(&out.diags, readFailure{summary: "Settings not checked at plan: " + summary, detail: detail, err: cause,
					errorNote: requiredNote, kept: notCheckedKept})
				return
			}
			out.diags.AddWarning(summary, detail+" The settings are checked at apply, and effective_settings is known after apply.")
		},
		packageMissing: func(out *checkOutput, pkg, who string) {
			out.deferred = true
			detail := fmt.Sprintf("ApplicationPackage %q does not exist, so package_repository_name of %s cannot be resolved.", pkg, who)
			if in.required {
				out.diags.AddError("Settings not checked at plan: Package not found", detail+` plan_checks = "required" makes this an error.`)
				return
			}
			out.diags.AddWarning("Package not found", detail+" The settings are checked at apply, and effective_settings is known after apply.")
		},
		atPlan: true,
	})
}

// checkAtApply runs DP's checks right before a write: anything that cannot
// be read is an error.
func (r *Resource) checkAtApply(ctx context.Context, cl *dpclient.Client, in checkInput) checkOutput {
	return r.runChecks(ctx, cl, in, checkStage{
		unreadable: func(out *checkOutput, summary, detail string, _ error) { out.diags.AddError(summary, detail) },
		packageMissing: func(out *checkOutput, pkg, _ string) {
			out.diags.AddAttributeError(path.Root("package_name"), "Package not found",
				fmt.Sprintf("ApplicationPackage %q does not exist; set package_repository_name or check package_name.", pkg))
		},
	})
}

// runChecks runs the checks of DP on one Application: it resolves the
// package repository, reads the package version and the project grants the
// settings schema refers to, evaluates the settings, and turns the result
// into diagnostics and effective settings.
func (r *Resource) runChecks(ctx context.Context, cl *dpclient.Client, in checkInput, stage checkStage) checkOutput {
	run := &checkRun{
		cl:    cl,
		in:    in,
		stage: stage,
		who:   fmt.Sprintf("Application %s/%s", in.namespace, in.name),
	}
	if !run.resolveRepository(ctx) {
		return run.out
	}
	pkg, ok := run.packageVersion(ctx)
	if !ok {
		return run.out
	}
	fields := pkg.Fields()
	run.out.declared = declaredPaths(fields)
	catalog, ok := run.grantCatalog(ctx, fields)
	if !ok {
		return run.out
	}
	merged, foreign := r.documentDPSees(ctx, cl, in)
	req := in.request(merged, catalog)
	res := pkg.Evaluate(req)
	if run.replaceVerdict(res) {
		return run.out
	}
	run.settingsDiagnostics(res)
	if run.out.diags.HasError() {
		return run.out
	}

	// ui-resource-name referents (warnings only, at plan).
	if stage.atPlan {
		run.out.diags.Append(r.checkReferents(ctx, cl, in, fields, withoutForeign(res.Effective, foreign))...)
	}
	run.out.effective = effectiveSettings(pkg, req, res, in, foreign)
	return run.out
}

// checkRun is one run of the checks: its inputs and the verdict so far.
type checkRun struct {
	cl    *dpclient.Client
	in    checkInput
	stage checkStage
	who   string // "Application <namespace>/<name>", for messages
	out   checkOutput
}

// deferOrFail reports cluster data the checks could not read: through the
// stage (a deferral at plan, an error at apply), or as an error now when
// cause says the provider's connection settings are wrong.
func (c *checkRun) deferOrFail(summary, detail string, cause error) {
	if dpclient.Classify(cause) == dpclient.ClassMisconfigured {
		// A configuration that cannot reach the cluster is an error now,
		// not a check deferred to an apply that would fail the same way.
		c.out.diags.AddError(summary, detail+" Fix the connection settings of the deckhouse provider.")
		return
	}
	c.stage.unreadable(&c.out, summary, detail, cause)
}

// resolveRepository sets out.repository: package_repository_name, or the
// one repository the ApplicationPackage offers. It reports whether the
// checks go on.
func (c *checkRun) resolveRepository(ctx context.Context) bool {
	c.out.repository = c.in.repository
	if c.out.repository != "" {
		return true
	}
	repos, found, err := c.cl.AvailableRepositories(ctx, c.in.packageName)
	switch {
	case err != nil:
		c.deferOrFail("Cannot resolve package_repository_name ("+connectionProblem(err)+")", err.Error()+".", err)
		return false
	case !found:
		c.stage.packageMissing(&c.out, c.in.packageName, c.who)
		return false
	case len(repos) != 1:
		choices := "none"
		if len(repos) > 0 {
			choices = strings.Join(repos, ", ")
		}
		c.out.diags.AddAttributeError(path.Root("package_repository_name"), "Choose a package repository",
			fmt.Sprintf("package_repository_name is not set and %d repositories offer package %q (status.availableRepositories of the ApplicationPackage): %s. Set package_repository_name to one of them.",
				len(repos), c.in.packageName, choices))
		return false
	}
	c.out.repository = repos[0]
	return true
}

// packageVersion reads the ApplicationPackageVersion of the resolved
// repository (at apply, waiting for it to become ready) and returns its
// compiled package, or false when the checks cannot go on.
func (c *checkRun) packageVersion(ctx context.Context) (*engine.Package, bool) {
	apvName := dpapi.PackageVersionName(c.out.repository, c.in.packageName, c.in.version)
	apv, waited, err := packageVersionAt(ctx, c.cl, apvName, c.who, c.stage.atPlan)
	if err != nil {
		c.deferOrFail("Cannot read the package version ("+connectionProblem(err)+")", err.Error()+".", err)
		return nil, false
	}
	if apv.Ready() && apv.Package == nil && apv.CompileErr != nil {
		c.refuseServedSchema(apvName, apv.CompileErr)
		return nil, false
	}
	if !apv.Ready() || apv.Package == nil {
		c.deferOrFail(fmt.Sprintf("Package version %s not available", c.in.version),
			apv.NotReadyReason()+"; "+c.who+" cannot be installed from it yet"+waited+".", nil)
		return nil, false
	}
	return apv.Package, true
}

// refuseServedSchema reports a published schema that DP publishes or
// serves but cannot install from (its runtime refuses it, for example an
// empty x-deckhouse-grantable-resource or an OpenAPI 3 discriminator
// object), as the load of a package folder does: an error naming the place
// and DP's reason, at plan and at apply. That verdict is final (no wait);
// settings_checks = "warning" turns it into a warning and leaves the
// verdict to DP, the checks then not run: the plan defers them (an error
// with plan_checks = "required", as any check the plan cannot run), and the
// apply writes the settings unchecked and reports DP's verdict, so that an
// apply never refuses what its plan let through for the same reason.
func (c *checkRun) refuseServedSchema(apvName string, cause error) {
	summary := fmt.Sprintf("Package version %s cannot be installed", c.in.version)
	detail := fmt.Sprintf("The schemas published in ApplicationPackageVersion %q: %v. %s cannot be installed from it.", apvName, cause, c.who)
	if c.in.settingsChecks == settingsChecksWarning {
		detail += ` settings_checks = "warning": DP decides.`
		if c.stage.atPlan {
			c.stage.unreadable(&c.out, summary, detail, nil)
			return
		}
		c.out.diags.AddAttributeWarning(path.Root("package_version"), summary, detail+
			" The apply writes the settings unchecked and waits for DP's verdict; effective_settings is DP's record once DP has applied them.")
		return
	}
	c.out.diags.AddAttributeError(path.Root("package_version"), summary, detail)
}

// grantCatalog reads the project grants of each grantable resource the
// fields are bound to, or returns false when they cannot be read.
func (c *checkRun) grantCatalog(ctx context.Context, fields []engine.Field) (engine.Catalog, bool) {
	catalog := engine.Catalog{}
	for _, f := range fields {
		if f.GrantableResource == "" {
			continue
		}
		if _, done := catalog[f.GrantableResource]; done {
			continue
		}
		g, err := c.cl.GrantCatalog(ctx, c.in.namespace, f.GrantableResource)
		if err != nil {
			c.deferOrFail("Cannot read the project grants ("+connectionProblem(err)+")", err.Error()+".", err)
			return nil, false
		}
		if g.Found {
			catalog[f.GrantableResource] = g.Catalog
		}
	}
	return catalog, true
}

// request is the engine's request for merged, the document DP sees
// (documentDPSees).
func (in checkInput) request(merged any, catalog engine.Catalog) engine.Request {
	return engine.Request{
		Settings:               merged,
		Previous:               in.previous,
		HasPrevious:            in.hasPrevious,
		PreviousIsRaw:          in.previousIsRaw,
		PreviousRaw:            in.previousRaw,
		HasPreviousRaw:         in.hasPreviousRaw,
		VersionChange:          in.versionChange,
		Catalog:                catalog,
		AllowDestructiveSwitch: in.allowDestructive,
	}
}

// replaceVerdict handles immutable fields in replace mode: a change to them
// is a replacement, not an error. It reports whether the Application is to
// be replaced (then the other problems are not reported).
func (c *checkRun) replaceVerdict(res *engine.Result) bool {
	if !c.in.hasPrevious || c.in.immutableMode != immutableModeReplace {
		return false
	}
	var names []string
	for _, p := range res.Problems {
		if p.Kind == engine.KindImmutable {
			names = append(names, "settings."+p.Path.String())
		}
	}
	if len(names) == 0 {
		return false
	}
	sort.Strings(names)
	c.out.replace = true
	c.out.diags.AddAttributeWarning(path.Root("settings"), "Immutable settings changed: the Application will be replaced",
		fmt.Sprintf("%s: %s %s x-deckhouse-immutable, and immutable_field_change = \"replace\", so the Application is deleted and created again with the new settings.",
			c.who, strings.Join(names, ", "), pluralVerb(len(names))))
	return true
}

// settingsDiagnostics adds the evaluation's problems (on settings or
// sensitive_settings, whichever the value comes from), switches, warnings
// and, at plan, the checks skipped for unknown values.
func (c *checkRun) settingsDiagnostics(res *engine.Result) {
	in := c.in
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
	c.out.diags.Append(settingsVerdict(in.settingsChecks, verdict)...)
	for _, w := range res.Warnings {
		c.out.diags.AddAttributeWarning(diagnostics.AttributePath(path.Root("settings"), w.Path), "DP may reject this value", w.Message)
	}
	if c.stage.atPlan && len(res.Skipped) > 0 {
		c.out.diags.Append(skippedByDocument(in, res.Skipped)...)
	}
}

// effectiveSettings are the effective settings from settings alone
// (unknown where settings are): sensitive values and the keys other field
// managers own stay out of them.
func effectiveSettings(pkg *engine.Package, req engine.Request, res *engine.Result, in checkInput, foreign any) map[string]any {
	effective := res.Effective
	if in.sensitive != nil || foreign != nil {
		req.Settings = in.settings
		effective = pkg.Evaluate(req).Effective
	}
	if effective == nil {
		effective = map[string]any{}
	}
	return effective
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
// an object that does not exist (yet) in the namespace. A name given in
// sensitive_settings is not looked up: a GET would carry it in its URL,
// which the API server's audit log and debug logs record.
func (r *Resource) checkReferents(ctx context.Context, cl *dpclient.Client, in checkInput, fields []engine.Field, effective map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	namespace := in.namespace
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
		if in.sensitive != nil && problemInSensitive(in.settings, in.sensitive, f.Path) {
			diags.AddAttributeWarning(path.Root("sensitive_settings"), "Referenced object not checked",
				fmt.Sprintf("sensitive_settings.%s names a %s (x-deckhouse-ui-resource-name); the plan does not look it up, since "+
					"the request would carry the name in its URL, which API server audit logs and debug logs record.", f.Path.String(), f.ResourceName.Kind))
			continue
		}
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
// Checks skipped for an unknown previous value (a path written from
// sensitive_settings, see previous.go) have their own words: that value is
// never known to the provider, not even at apply.
func skippedByDocument(in checkInput, skipped []engine.Skipped) diag.Diagnostics {
	var inSettings, inSensitive []engine.Skipped
	previous := map[string][]string{}
	var previousOrder []engine.Path
	for _, s := range skipped {
		switch {
		case s.Document == engine.DocPreviousSettings:
			key := s.Unknown.String()
			if _, seen := previous[key]; !seen {
				previousOrder = append(previousOrder, s.Unknown)
			}
			previous[key] = append(previous[key], s.Check)
		case in.sensitive != nil && problemInSensitive(in.settings, in.sensitive, s.Unknown):
			inSensitive = append(inSensitive, s)
		default:
			inSettings = append(inSettings, s)
		}
	}
	diags := diagnostics.Skipped(path.Root("settings"), inSettings, in.required)
	diags.Append(diagnostics.Skipped(path.Root("sensitive_settings"), inSensitive, in.required)...)
	for _, p := range previousOrder {
		rootName := "settings"
		if in.sensitive != nil && problemInSensitive(in.settings, in.sensitive, p) {
			rootName = "sensitive_settings"
		}
		where := diagnostics.AttributePath(path.Root(rootName), p)
		name := rootName + "." + p.String()
		summary := "Not checked at plan: the previous value of " + name + " is not known"
		detail := fmt.Sprintf("%s was written from sensitive_settings, whose values the provider never keeps, so these update "+
			"checks cannot compare with its previous value: %s. DP's webhook runs them when the Application is written.",
			name, strings.Join(uniqueStrings(previous[p.String()]), "; "))
		if in.required {
			diags.AddAttributeError(where, summary, detail+` plan_checks = "required" makes this an error: use plan_checks = "best_effort" to leave them to DP.`)
		} else {
			diags.AddAttributeWarning(where, summary, detail)
		}
	}
	return diags
}

func uniqueStrings(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
