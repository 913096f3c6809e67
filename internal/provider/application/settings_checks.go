package application

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Values of settings_checks: what the problems the engine finds in the
// settings of one Application do. "error" (also when the argument is null)
// fails the plan and refuses the write, as DP would; "warning" reports the
// same problems as warnings and lets the apply write the settings, so that
// DP decides. The escape hatch exists for the cases where the provider's
// reading of DP's rules rejects settings DP accepts (see the compatibility
// page): a team can deploy without waiting for a provider release.
//
// Only the verdict on the settings changes. Whether the checks ran is
// untouched: with plan_checks = "required" a plan that could not run them
// still fails, so a green strict plan still means the settings were checked.
// An immutable field in immutable_field_change = "replace" still replaces.
const (
	settingsChecksError   = "error"
	settingsChecksWarning = "warning"
)

// settingsChecksAttribute is the schema of settings_checks. It has no
// default (null means "error"), so existing states plan no change.
func settingsChecksAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "What the problems the plan finds in the settings do: `error` (default, also when unset: " +
			"the plan fails naming each field, as DP would reject the settings) or `warning` (each problem is reported as " +
			"a warning with the same text, `effective_settings` is computed from the settings as given, and the apply " +
			"writes them: DP decides, and a rejection by DP fails the apply's wait as usual). An escape hatch for " +
			"settings the provider rejects and DP accepts (see the compatibility guide); `plan_checks = \"required\"` " +
			"still fails a plan that could not run the checks.",
		Validators: []validator.String{stringvalidator.OneOf(settingsChecksError, settingsChecksWarning)},
	}
}

// settingsVerdict applies the settings_checks mode to the diagnostics of
// the checks on the settings: in "warning" mode every error becomes a
// warning with the same summary, its detail saying that DP decides.
func settingsVerdict(mode string, diags diag.Diagnostics) diag.Diagnostics {
	if mode != settingsChecksWarning || !diags.HasError() {
		return diags
	}
	const note = "\n\nsettings_checks = \"warning\": reported as a warning; the apply writes the settings and DP decides."
	out := make(diag.Diagnostics, 0, len(diags))
	for _, d := range diags {
		if d.Severity() != diag.SeverityError {
			out = append(out, d)
			continue
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			out.AddAttributeWarning(wp.Path(), d.Summary(), d.Detail()+note)
		} else {
			out.AddWarning(d.Summary(), d.Detail()+note)
		}
	}
	return out
}
