package appstatus

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Descriptions shared by the resource and the data source, so the same
// attribute says the same thing in both.
const (
	// EffectiveSettingsDescription is what effective_settings means, in
	// both schemas; each adds where its value comes from.
	EffectiveSettingsDescription = "The effective settings of the Application's current settings, as DP builds them: " +
		"settings + settings-schema defaults + project grant defaults. DP stores them in " +
		"`status.lastAppliedConfiguration` once it has applied them (that record, possibly of an earlier " +
		"generation, is `last_applied_settings`)."
	// LastAppliedSettingsDescription is what last_applied_settings means, in both schemas.
	LastAppliedSettingsDescription = "`status.lastAppliedConfiguration`: the effective settings of DP's last successful " +
		"apply, which may be of an earlier generation than the current settings; null before the first one."

	statusDescription = "Status of the Application as DP reports it. Fields DP has not written are null, lists " +
		"are empty when DP reports none. DP's texts (every string here but a condition's `type` and `status`) " +
		"may quote settings, so every value of `spec.settings` is replaced by `(sensitive value)`."
	conditionsDescription = "Every condition of `status.conditions`, sorted by type (`ConfigurationApplied`, " +
		"`Installed`, `Managed`, `Ready`, `Scaled`, `UpdateInstalled`, …). Pick one with " +
		"`one([for c in <address>.status.conditions : c if c.type == \"Ready\"])`."
)

// leaf is a string or integer attribute of the status with its description.
type leaf struct {
	desc  string
	isInt bool
}

var (
	summaryLeaves = map[string]leaf{
		"state":             {desc: "`status.summary.state`: Pending, Failed, Updating, Ready, Degraded, Suspended or Deleting."},
		"message":           {desc: "`status.summary.message`."},
		"tip":               {desc: "`status.summary.tip`: what to do about the state, when DP has a hint."},
		"installed_version": {desc: "`status.currentVersion.version`: the installed version."},
	}
	urlLeaves = map[string]leaf{
		"url":         {desc: "Address."},
		"description": {desc: "What the address is for."},
	}
	conditionLeaves = map[string]leaf{
		"type":                {desc: "Condition type."},
		"status":              {desc: "`True`, `False` or `Unknown`."},
		"reason":              {desc: "Machine-readable reason; a True condition has its type as reason."},
		"message":             {desc: "Human-readable message."},
		"observed_generation": {desc: "The `metadata.generation` the condition was written for.", isInt: true},
	}
	// appliedLeaves are those of a condition but its type.
	appliedLeaves = map[string]leaf{
		"status":              conditionLeaves["status"],
		"reason":              conditionLeaves["reason"],
		"message":             conditionLeaves["message"],
		"observed_generation": conditionLeaves["observed_generation"],
	}
)

const (
	urlsDescription    = "`status.urls`: the addresses the application publishes, in DP's order."
	appliedDescription = "The `ConfigurationApplied` condition (whether DP applied the settings, and for which " +
		"generation), null when absent."
)

// resourceStatusDescription is the resource's status: DP's verdict and
// message without the list of conditions, which the data sources carry.
const resourceStatusDescription = "Status of the Application as DP reports it: its summary, installed version, " +
	"addresses and the `ConfigurationApplied` condition. Every condition (`status.conditions`) is in the " +
	"`deckhouse_application` data source. Fields DP has not written are null, `urls` is empty when DP reports none. " +
	"DP's texts (every string here but the condition's `status`) may quote settings, so each value of " +
	"`sensitive_settings` or of the settings other field managers own is replaced by `(sensitive value)`."

// ResourceAttribute is the status attribute of the resource's schema: that
// of the data sources without conditions (ResourceAttrTypes).
func ResourceAttribute() rschema.SingleNestedAttribute {
	leaves := func(ls map[string]leaf) map[string]rschema.Attribute {
		return leavesOf(ls, func(d string) rschema.Attribute {
			return rschema.StringAttribute{Computed: true, MarkdownDescription: d}
		},
			func(d string) rschema.Attribute {
				return rschema.Int64Attribute{Computed: true, MarkdownDescription: d}
			})
	}
	attrs := leaves(summaryLeaves)
	attrs["urls"] = rschema.ListNestedAttribute{Computed: true, MarkdownDescription: urlsDescription,
		NestedObject: rschema.NestedAttributeObject{Attributes: leaves(urlLeaves)}}
	attrs["configuration_applied"] = rschema.SingleNestedAttribute{Computed: true, MarkdownDescription: appliedDescription,
		Attributes: leaves(appliedLeaves)}
	return rschema.SingleNestedAttribute{Computed: true, MarkdownDescription: resourceStatusDescription, Attributes: attrs}
}

// DataSourceAttribute is the status attribute of the data source's schema.
func DataSourceAttribute() dschema.SingleNestedAttribute {
	leaves := func(ls map[string]leaf) map[string]dschema.Attribute {
		return leavesOf(ls, func(d string) dschema.Attribute {
			return dschema.StringAttribute{Computed: true, MarkdownDescription: d}
		},
			func(d string) dschema.Attribute {
				return dschema.Int64Attribute{Computed: true, MarkdownDescription: d}
			})
	}
	attrs := leaves(summaryLeaves)
	attrs["urls"] = dschema.ListNestedAttribute{Computed: true, MarkdownDescription: urlsDescription,
		NestedObject: dschema.NestedAttributeObject{Attributes: leaves(urlLeaves)}}
	attrs["configuration_applied"] = dschema.SingleNestedAttribute{Computed: true, MarkdownDescription: appliedDescription,
		Attributes: leaves(appliedLeaves)}
	attrs["conditions"] = dschema.ListNestedAttribute{Computed: true, MarkdownDescription: conditionsDescription,
		NestedObject: dschema.NestedAttributeObject{Attributes: leaves(conditionLeaves)}}
	return dschema.SingleNestedAttribute{Computed: true, MarkdownDescription: statusDescription, Attributes: attrs}
}

// leavesOf maps each leaf to a schema attribute (resource or data source)
// made by str or integer.
func leavesOf[A any](ls map[string]leaf, str, integer func(desc string) A) map[string]A {
	out := make(map[string]A, len(ls))
	for name, l := range ls {
		if l.isInt {
			out[name] = integer(l.desc)
		} else {
			out[name] = str(l.desc)
		}
	}
	return out
}

// attrTypes is the object type of leaves ls.
func attrTypes(ls map[string]leaf) map[string]attr.Type {
	return leavesOf(ls, func(string) attr.Type { return types.StringType }, func(string) attr.Type { return types.Int64Type })
}
