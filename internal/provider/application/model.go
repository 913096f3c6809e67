package application

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// applicationModel is the Terraform data of deckhouse_application.
type applicationModel struct {
	ID                             types.String   `tfsdk:"id"`
	Name                           types.String   `tfsdk:"name"`
	Namespace                      types.String   `tfsdk:"namespace"`
	PackageName                    types.String   `tfsdk:"package_name"`
	PackageVersion                 types.String   `tfsdk:"package_version"`
	PackageRepositoryName          types.String   `tfsdk:"package_repository_name"`
	ReleaseChannel                 types.String   `tfsdk:"release_channel"`
	Maintenance                    types.String   `tfsdk:"maintenance"`
	Update                         types.Object   `tfsdk:"update"`
	ResourceRequests               types.List     `tfsdk:"resource_requests"`
	Labels                         types.Map      `tfsdk:"labels"`
	Annotations                    types.Map      `tfsdk:"annotations"`
	Settings                       types.Dynamic  `tfsdk:"settings"`
	SensitiveSettings              types.Dynamic  `tfsdk:"sensitive_settings"`
	SensitiveSettingsVersion       types.String   `tfsdk:"sensitive_settings_version"`
	ImmutableFieldChange           types.String   `tfsdk:"immutable_field_change"`
	AllowDestructiveSettingsSwitch types.Bool     `tfsdk:"allow_destructive_settings_switch"`
	SettingsChecks                 types.String   `tfsdk:"settings_checks"`
	Wait                           types.Bool     `tfsdk:"wait"`
	WaitFor                        types.String   `tfsdk:"wait_for"`
	FieldManager                   types.String   `tfsdk:"field_manager"`
	ForceConflicts                 types.Bool     `tfsdk:"force_conflicts"`
	Timeouts                       timeouts.Value `tfsdk:"timeouts"`
	EffectiveSettings              types.String   `tfsdk:"effective_settings"`
	Status                         types.Object   `tfsdk:"status"`
	LastAppliedSettings            types.String   `tfsdk:"last_applied_settings"`
}

// applicationIdentity is the resource identity (namespace, name).
type applicationIdentity struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
}

// timeout returns the configured timeout of op (create, update, delete).
func (m *applicationModel) timeout(ctx context.Context, op string, def time.Duration) time.Duration {
	if m.Timeouts.IsNull() || m.Timeouts.IsUnknown() {
		return def
	}
	get := map[string]func(context.Context, time.Duration) (time.Duration, diag.Diagnostics){
		"create": m.Timeouts.Create, "update": m.Timeouts.Update, "delete": m.Timeouts.Delete,
	}[op]
	d, diags := get(ctx, def)
	if diags.HasError() || d <= 0 {
		return def
	}
	return d
}

// waitFor is the condition the waits of this Application end on.
func (m *applicationModel) waitFor() string {
	if m.WaitFor.IsNull() || m.WaitFor.IsUnknown() || m.WaitFor.ValueString() == "" {
		return dpclient.ConditionConfigurationApplied
	}
	return m.WaitFor.ValueString()
}

// lastAppliedValue is status.lastAppliedConfiguration without the values
// sensitive_settings wrote, as a JSON document (convert.ToJSONString).
func lastAppliedValue(obj *unstructured.Unstructured, sensitivePaths []sensitivePath) types.String {
	v, ok, _ := unstructured.NestedFieldCopy(obj.Object, "status", "lastAppliedConfiguration")
	if !ok || v == nil {
		return types.StringNull()
	}
	return convert.ToJSONString(stripPaths(v, resolvePaths(v, sensitivePaths, appSalt(obj.GetNamespace(), obj.GetName())), nil))
}

// lastAppliedStored is DP's record as the state stores it: null when it
// holds the same document as the effective settings (the usual case once DP
// has applied them), so the state holds the settings DP applied once; the
// record itself when it differs (DP applied an earlier generation, or
// without values the effective settings have). A null last_applied_settings
// beside a non-null effective_settings therefore means "equal to
// effective_settings"; both null means DP has no record the state may hold.
// Both are convert.ToJSONString's encoding: one document, one string.
func lastAppliedStored(record, effective types.String) types.String {
	if record.IsNull() || record.IsUnknown() || effective.IsNull() || effective.IsUnknown() || !record.Equal(effective) {
		return record
	}
	return types.StringNull()
}

func optionalString(s string, prior types.String) types.String {
	if s == "" && (prior.IsNull() || prior.IsUnknown()) {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func stringMap(m types.Map) map[string]any {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]any{}
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out[k] = s.ValueString()
		}
	}
	return out
}
