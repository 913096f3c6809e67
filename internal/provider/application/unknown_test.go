package application

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// When any part of settings is known only at apply (a module input),
// effective_settings is unknown at plan: a known document (the empty one
// of settings unknown as a whole) would differ from the apply's, which the
// CLIs refuse as an inconsistent final plan. The checks still run on what
// is known.
func TestPlan_EffectiveSettingsUnknownWhileSettingsAre(t *testing.T) {
	tests := []struct {
		name     string
		settings types.Dynamic
	}{
		{name: "settings unknown", settings: types.DynamicUnknown()},
		{name: "one key unknown", settings: types.DynamicValue(types.ObjectValueMust(
			map[string]attr.Type{"replicas": types.NumberType, "domain": types.StringType},
			map[string]attr.Value{"replicas": types.NumberUnknown(), "domain": types.StringValue("app.example.com")}))},
		{name: "a nested key unknown", settings: types.DynamicValue(types.ObjectValueMust(
			map[string]attr.Type{"auth": types.ObjectType{AttrTypes: map[string]attr.Type{"user": types.StringType}}},
			map[string]attr.Value{"auth": types.ObjectValueMust(map[string]attr.Type{"user": types.StringType},
				map[string]attr.Value{"user": types.StringUnknown()})}))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			cfg := demoConfig(nil)
			cfg.Settings = tt.settings
			null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
			resp, err := h.srv.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
				TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
			})
			if err != nil {
				t.Fatal(err)
			}
			if hasError(resp.Diagnostics) {
				t.Fatalf("plan: %s", diagText(resp.Diagnostics))
			}
			if got := h.model(resp.PlannedState).EffectiveSettings; !got.IsUnknown() {
				t.Fatalf("effective_settings planned as %s, want unknown", got)
			}
		})
	}
}

// A plan that finds a problem in the known part of partly unknown settings
// reports it as today.
func TestPlan_PartlyUnknownSettingsAreCheckedOnWhatIsKnown(t *testing.T) {
	h := newHarness(t)
	cfg := demoConfig(nil)
	cfg.Settings = types.DynamicValue(types.ObjectValueMust(
		map[string]attr.Type{"replicas": types.NumberType, "logLevel": types.StringType},
		map[string]attr.Value{"replicas": types.NumberUnknown(), "logLevel": types.StringValue("Verbose")}))
	null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	resp, err := h.srv.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !hasError(resp.Diagnostics) {
		t.Fatal("the known logLevel = Verbose passed the plan")
	}
}
