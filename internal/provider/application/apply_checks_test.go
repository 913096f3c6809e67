package application

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// sensitivePassword is sensitive_settings = { auth = { password = v } }.
func sensitivePassword(v attr.Value) types.Dynamic {
	inner := map[string]attr.Type{"password": v.Type(context.Background())}
	return types.DynamicValue(types.ObjectValueMust(map[string]attr.Type{"auth": types.ObjectType{AttrTypes: inner}},
		map[string]attr.Value{"auth": types.ObjectValueMust(inner, map[string]attr.Value{"password": v})}))
}

// A check the plan skipped because a value of sensitive_settings was
// unknown runs at apply, before the write: a number given where the schema
// wants a string is refused, and nothing is written.
func TestApply_ChecksSkippedAtPlanRunBeforeTheWrite(t *testing.T) {
	h := newHarness(t)
	cfg := demoConfig(map[string]any{"replicas": 2})
	cfg.SensitiveSettings = sensitivePassword(types.StringUnknown())
	null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	planResp, err := h.srv.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
	})
	if err != nil {
		t.Fatal(err)
	}
	if hasError(planResp.Diagnostics) {
		t.Fatalf("plan: %s", diagText(planResp.Diagnostics))
	}
	if planned := decodeToModel(t, planResp.PlannedState); planned.EffectiveSettings.IsUnknown() {
		t.Fatal("effective_settings unknown at plan: the test needs a plan that computed them")
	}
	final := cfg
	final.SensitiveSettings = sensitivePassword(types.NumberValue(big.NewFloat(12345)))
	applyResp, err := h.srv.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, PlannedState: planResp.PlannedState, Config: encodeModel(t, final),
		PlannedPrivate: planResp.PlannedPrivate,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !hasError(applyResp.Diagnostics) || !strings.Contains(diagText(applyResp.Diagnostics), "string") {
		t.Fatalf("apply did not refuse a number for a string:\n%s", diagText(applyResp.Diagnostics))
	}
	if strings.Contains(diagText(applyResp.Diagnostics), "12345") {
		t.Fatalf("the error shows the secret:\n%s", diagText(applyResp.Diagnostics))
	}
	if n := h.dp.patchCount(); n != 0 {
		t.Fatalf("%d writes, want none", n)
	}
}
