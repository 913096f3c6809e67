package application

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

// The plan shows the value a project grant supplies, as DP will inject it:
// effective_settings.storageClass is the namespace's default.
func TestPlan_EffectiveSettingsHoldTheProjectDefault(t *testing.T) {
	h := newHarness(t)
	h.dp.setGrantDefault("fast")
	cfg := demoConfig(map[string]any{"replicas": 2})
	null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	plan, err := h.srv.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
	})
	if err != nil || hasError(plan.Diagnostics) {
		t.Fatalf("plan: %v %s", err, diagText(plan.Diagnostics))
	}
	if got := storageClassOf(t, plan.PlannedState); !got.Equal(tftypes.NewValue(tftypes.String, "fast")) {
		t.Fatalf("planned effective_settings.storageClass = %v, want the project default fast", got)
	}
}

// A project default that changed between plan and apply: the CLI's plan at
// apply reads the grant again and differs from the saved plan (the CLI stops
// with "inconsistent final plan", the protocol tells the provider nothing of
// the earlier plan); the apply itself, handed the earlier plan, refuses
// before it writes and names the field.
func TestApply_ProjectDefaultChangedSincePlanIsRefusedBeforeTheWrite(t *testing.T) {
	h := newHarness(t)
	h.dp.setGrantDefault("fast")
	cfg := demoConfig(map[string]any{"replicas": 2})
	null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	req := &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
	}
	first, err := h.srv.PlanResourceChange(t.Context(), req)
	if err != nil || hasError(first.Diagnostics) {
		t.Fatalf("plan: %v %s", err, diagText(first.Diagnostics))
	}
	h.dp.setGrantDefault("slow")
	applySrv := providerserver.NewProtocol6(&testProvider{})()
	configure(t, applySrv, h.dp.URL, "")
	final, err := applySrv.PlanResourceChange(t.Context(), req)
	if err != nil || hasError(final.Diagnostics) {
		t.Fatalf("final plan: %v %s", err, diagText(final.Diagnostics))
	}
	if got := storageClassOf(t, final.PlannedState); !got.Equal(tftypes.NewValue(tftypes.String, "slow")) {
		t.Fatalf("the plan at apply shows %v, want the new default slow (what the CLI compares with the saved plan)", got)
	}
	applied, err := applySrv.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, PlannedState: first.PlannedState, Config: req.Config, PlannedPrivate: first.PlannedPrivate,
	})
	if err != nil {
		t.Fatal(err)
	}
	text := diagText(applied.Diagnostics)
	if !hasError(applied.Diagnostics) || !strings.Contains(text, "Project default changed since the plan: settings.storageClass") ||
		!strings.Contains(text, `is now "slow"`) {
		t.Fatalf("apply with the earlier plan: want the changed project default named, got %s", text)
	}
	if n := h.dp.patchCount(); n != 0 {
		t.Fatalf("%d writes, want none", n)
	}
	// With the plan the apply made, it writes, and the state holds the default DP used.
	applied, err = applySrv.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, PlannedState: final.PlannedState, Config: req.Config, PlannedPrivate: final.PlannedPrivate,
	})
	if err != nil || hasError(applied.Diagnostics) {
		t.Fatalf("apply: %v %s", err, diagText(applied.Diagnostics))
	}
	consistent(t, decodeModel(t, final.PlannedState), decodeModel(t, applied.NewState))
	if got := storageClassOf(t, applied.NewState); !got.Equal(tftypes.NewValue(tftypes.String, "slow")) {
		t.Fatalf("effective_settings.storageClass after apply = %v, want slow", got)
	}
}

// storageClassOf is storageClass of the JSON document effective_settings
// holds in dv.
func storageClassOf(t *testing.T, dv *tfprotov6.DynamicValue) tftypes.Value {
	t.Helper()
	v, _, err := tftypes.WalkAttributePath(decodeModel(t, dv), tftypes.NewAttributePath().WithAttributeName("effective_settings"))
	got, ok := v.(tftypes.Value)
	if err != nil || !ok {
		t.Fatalf("effective_settings: %v", err)
	}
	var doc string
	if err := got.As(&doc); err != nil {
		t.Fatalf("effective_settings: %v", err)
	}
	var effective map[string]any
	if err := json.Unmarshal([]byte(doc), &effective); err != nil {
		t.Fatalf("effective_settings %q: %v", doc, err)
	}
	sc, ok := effective["storageClass"].(string)
	if !ok {
		t.Fatalf("effective_settings %s has no storageClass string", doc)
	}
	return tftypes.NewValue(tftypes.String, sc)
}

// An update that changes nothing DP applies (here only labels) keeps the
// effective settings of the state, whose project default DP does not inject
// again: a default changed since is not a reason to refuse it.
func TestApply_ProjectDefaultChangedDoesNotRefuseAnUpdateOfLabels(t *testing.T) {
	h := newHarness(t)
	h.dp.setGrantDefault("fast")
	cfg := demoConfig(map[string]any{"replicas": 2})
	created := h.planAndApply(nil, nil, cfg)
	if hasError(created.plan.Diagnostics) || created.apply == nil || hasError(created.apply.Diagnostics) {
		t.Fatalf("create failed: %s", diagText(created.plan.Diagnostics))
	}
	h.dp.setGrantDefault("slow")
	p := &testProvider{}
	srv := providerserver.NewProtocol6(p)()
	configure(t, srv, h.dp.URL, "")
	next := &harness{t: t, dp: h.dp, srv: srv, p: p}
	cfg.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("payments")})
	before := h.dp.patchCount()
	updated := next.planAndApply(created.state, created.private, cfg)
	if hasError(updated.plan.Diagnostics) || updated.apply == nil {
		t.Fatalf("labels-only update: %s", diagText(updated.plan.Diagnostics))
	}
	if hasError(updated.apply.Diagnostics) {
		t.Fatalf("labels-only update refused: %s", diagText(updated.apply.Diagnostics))
	}
	if h.dp.patchCount() != before+1 {
		t.Fatalf("the labels-only update was not written")
	}
}

// The apply reads the grant past the reads of the plan made in the same
// process: a default changed between that plan and the write is refused.
func TestApply_ProjectDefaultIsReadAgainForTheWrite(t *testing.T) {
	h := newHarness(t)
	h.dp.setGrantDefault("fast")
	cfg := demoConfig(map[string]any{"replicas": 2})
	null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	req := &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg),
	}
	plan, err := h.srv.PlanResourceChange(t.Context(), req)
	if err != nil || hasError(plan.Diagnostics) {
		t.Fatalf("plan: %v %s", err, diagText(plan.Diagnostics))
	}
	h.dp.setGrantDefault("slow")
	applied, err := h.srv.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, PlannedState: plan.PlannedState, Config: req.Config, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		t.Fatal(err)
	}
	if text := diagText(applied.Diagnostics); !strings.Contains(text, "Project default changed since the plan: settings.storageClass") {
		t.Fatalf("want the changed project default named, got %s", text)
	}
	if n := h.dp.patchCount(); n != 0 {
		t.Fatalf("%d writes, want none", n)
	}
}
