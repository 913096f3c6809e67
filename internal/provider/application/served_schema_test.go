package application

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestPlan_ServedSchemaDPsRuntimeRefusesIsAnError: a published schema that
// DP's runtime cannot load (an empty x-deckhouse-grantable-resource, an
// OpenAPI 3 discriminator object) fails the plan at package_version with
// DP's reason, as the load of a package folder does, in the default
// plan_checks mode; settings_checks = "warning" leaves the verdict to DP.
func TestPlan_ServedSchemaDPsRuntimeRefusesIsAnError(t *testing.T) {
	cases := []struct {
		name   string
		schema map[string]any
		reason string
	}{
		{"empty grantable resource", map[string]any{"type": "object", "properties": map[string]any{
			"storageClass": map[string]any{"type": "string", "x-deckhouse-grantable-resource": ""}}},
			`x-deckhouse-grantable-resource requires a non-empty value`},
		{"discriminator object", map[string]any{"type": "object", "properties": map[string]any{
			"backend": map[string]any{"type": "object", "discriminator": map[string]any{"propertyName": "kind"}}}},
			`cannot unmarshal object into ... discriminator of type string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.dp.setSchema(tc.schema)
			cfg := demoConfig(map[string]any{})
			plan := func(cfg applicationModel) *tfprotov6.PlanResourceChangeResponse {
				null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
				resp, err := h.srv.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
					TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
				})
				if err != nil {
					t.Fatal(err)
				}
				return resp
			}
			resp := plan(cfg)
			text := diagText(resp.Diagnostics)
			if !hasError(resp.Diagnostics) || !strings.Contains(text, tc.reason) || !strings.Contains(text, "cannot be installed") {
				t.Fatalf("want an error with DP's reason %q, got %s", tc.reason, text)
			}
			cfg.SettingsChecks = types.StringValue(settingsChecksWarning)
			resp = plan(cfg)
			if text := diagText(resp.Diagnostics); hasError(resp.Diagnostics) || !strings.Contains(text, tc.reason) {
				t.Fatalf("settings_checks = \"warning\": want a warning with DP's reason, got %s", text)
			}
		})
	}
}

// TestApply_ServedSchemaDPsRuntimeRefusesIsLeftToDPWithWarningChecks: with
// settings_checks = "warning", what the plan lets through with a warning
// ("DP decides") the apply does not refuse for the same reason: it writes
// the settings unchecked, reports DP's verdict, and records DP's record as
// effective_settings once DP has applied them.
func TestApply_ServedSchemaDPsRuntimeRefusesIsLeftToDPWithWarningChecks(t *testing.T) {
	h := newHarness(t)
	h.dp.setSchema(map[string]any{"type": "object", "properties": map[string]any{
		"storageClass": map[string]any{"type": "string", "x-deckhouse-grantable-resource": ""}}})
	cfg := demoConfig(map[string]any{"storageClass": "fast"})
	cfg.SettingsChecks = types.StringValue(settingsChecksWarning)
	st := h.planAndApply(nil, nil, cfg)
	if hasError(st.plan.Diagnostics) || !strings.Contains(diagText(st.plan.Diagnostics), "cannot be installed") {
		t.Fatalf("plan: want the warning, got %s", diagText(st.plan.Diagnostics))
	}
	if st.apply == nil || hasError(st.apply.Diagnostics) {
		t.Fatalf("apply refused what the plan let through: %s", diagText(st.applyDiags()))
	}
	if !strings.Contains(diagText(st.apply.Diagnostics), "DP decides") {
		t.Fatalf("apply: want the warning that DP decides, got %s", diagText(st.apply.Diagnostics))
	}
	if h.dp.app("app") == nil {
		t.Fatal("nothing was written")
	}
	if got := h.model(st.state).EffectiveSettings.ValueString(); got != `{"storageClass":"fast"}` {
		t.Fatalf("effective_settings %q, want DP's record", got)
	}
}
