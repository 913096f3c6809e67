package application

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// consistent fails unless every known primitive value of planned has the
// same value in final: what the CLI asserts of the plan an apply makes
// against the plan it applies.
func consistent(t *testing.T, planned, final tftypes.Value) {
	t.Helper()
	err := tftypes.Walk(planned, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if !v.IsKnown() || v.Type().Is(tftypes.Object{}) || v.Type().Is(tftypes.Map{}) || v.Type().Is(tftypes.List{}) ||
			v.Type().Is(tftypes.Set{}) || v.Type().Is(tftypes.Tuple{}) {
			return true, nil
		}
		got, _, werr := tftypes.WalkAttributePath(final, p)
		if gv, ok := got.(tftypes.Value); werr != nil || !ok || !gv.Equal(v) {
			t.Errorf("%s: planned %v, final plan %v (Provider produced inconsistent final plan)", p, v, got)
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A project's grant default may change between plan and apply: the plan
// leaves the value a grant supplies unknown, so the plan the apply makes
// (in a new provider process, which reads the grant again) agrees with it,
// and the state records the default DP used.
func TestPlan_GrantDefaultChangedBeforeApplyStaysConsistent(t *testing.T) {
	h := newHarness(t)
	h.dp.grantDefault = "fast"
	cfg := demoConfig(map[string]any{"replicas": 2})
	null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	req := &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
	}
	first, err := h.srv.PlanResourceChange(t.Context(), req)
	if err != nil || hasError(first.Diagnostics) {
		t.Fatalf("plan: %v %s", err, diagText(first.Diagnostics))
	}
	h.dp.mu.Lock()
	h.dp.grantDefault = "slow"
	h.dp.mu.Unlock()
	applySrv := providerserver.NewProtocol6(&testProvider{})()
	configure(t, applySrv, h.dp.srv.URL, "")
	final, err := applySrv.PlanResourceChange(t.Context(), req)
	if err != nil || hasError(final.Diagnostics) {
		t.Fatalf("final plan: %v %s", err, diagText(final.Diagnostics))
	}
	consistent(t, decodeModel(t, first.PlannedState), decodeModel(t, final.PlannedState))
	if got := decodeToModel(t, first.PlannedState).EffectiveSettings; got.IsUnknown() || got.IsNull() {
		t.Fatal("effective_settings unknown as a whole: only the grant's value should be")
	}
	applied, err := applySrv.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, PlannedState: final.PlannedState, Config: req.Config, PlannedPrivate: final.PlannedPrivate,
	})
	if err != nil || hasError(applied.Diagnostics) {
		t.Fatalf("apply: %v %s", err, diagText(applied.Diagnostics))
	}
	consistent(t, decodeModel(t, final.PlannedState), decodeModel(t, applied.NewState))
	eff, _, _ := tftypes.WalkAttributePath(decodeModel(t, applied.NewState), tftypes.NewAttributePath().WithAttributeName("effective_settings").WithAttributeName("storageClass"))
	if v, ok := eff.(tftypes.Value); !ok || !v.Equal(tftypes.NewValue(tftypes.String, "slow")) {
		t.Fatalf("effective_settings.storageClass after apply = %v, want slow", eff)
	}
}
