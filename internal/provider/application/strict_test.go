package application

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// importApp imports demo/app (which the fakeDP holds) and refreshes it, as
// `tofu import` does, and returns the state and private data.
func importApp(t *testing.T, h *harness) (*tfprotov6.DynamicValue, []byte) {
	t.Helper()
	imp, err := h.srv.ImportResourceState(t.Context(), &tfprotov6.ImportResourceStateRequest{TypeName: TypeName, ID: "demo/app"})
	if err != nil || hasError(imp.Diagnostics) || len(imp.ImportedResources) != 1 {
		t.Fatalf("import: %v %s", err, diagText(imp.Diagnostics))
	}
	read := h.read(imp.ImportedResources[0].State, imp.ImportedResources[0].Private)
	if hasError(read.Diagnostics) {
		t.Fatalf("read: %s", diagText(read.Diagnostics))
	}
	return read.NewState, read.Private
}

// The first plan after an import has no previous settings in the state
// (the state holds none of an imported Application's settings): it takes
// DP's status.lastAppliedConfiguration as the previous document, in memory,
// so immutable fields and oldSelf rules are checked as DP's webhook will.
func TestPlan_AfterImportUpdateChecksUseTheAppliedConfiguration(t *testing.T) {
	for _, mode := range []string{"best_effort", "required"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t)
			if mode == "required" {
				h.required()
			}
			h.dp.apply("app", map[string]any{"spec": map[string]any{"packageName": "demo-app", "packageVersion": "v1.0.0",
				"packageRepositoryName": "demo", "settings": map[string]any{"storageClass": "fast", "size": 20}}})
			state, private := importApp(t, h)
			if !h.model(state).Settings.IsNull() {
				t.Fatal("the imported state holds settings")
			}
			writes := h.dp.patchCount()
			st := h.planAndApply(state, private, demoConfig(map[string]any{"storageClass": "slow", "size": 5}))
			text := diagText(st.plan.Diagnostics)
			if !hasError(st.plan.Diagnostics) || !strings.Contains(text, "storageClass") || !strings.Contains(text, "size can only grow") {
				t.Fatalf("the plan after the import did not run the update checks:\n%s", text)
			}
			if strings.Contains(string(st.plan.PlannedPrivate), "lastApplied") || h.dp.patchCount() != writes {
				t.Fatal("the previous document left memory or the plan wrote")
			}
		})
	}
}

// With plan_checks = "required", update checks on a path written from
// sensitive_settings (whose previous value the provider never keeps) cannot
// run at plan: the plan fails naming them instead of passing.
func TestPlan_RequiredFailsOnUpdateChecksOfSensitivePaths(t *testing.T) {
	h := newHarness(t)
	cfg, created := createWithSecret(t, h)
	h.required()
	next := cfg
	next.Settings = convert.ToDynamic(map[string]any{"replicas": 3})
	st := h.planAndApply(created.state, created.private, next)
	text := diagText(st.plan.Diagnostics)
	if !hasError(st.plan.Diagnostics) || !strings.Contains(text, "sensitive_settings.auth.password") || !strings.Contains(text, "immutab") {
		t.Fatalf("want an error naming the unchecked immutability of sensitive_settings.auth.password:\n%s", text)
	}
	if strings.Contains(text, guardSecret) {
		t.Fatal("the error holds the secret")
	}
}

// A set whose elements are not all known has an unknown length: maxItems
// and minItems are skipped (an error with plan_checks = "required"), not run
// on the elements known so far.
func TestPlan_SetWithUnknownElementsSkipsItsLengthChecks(t *testing.T) {
	h := newHarness(t)
	h.required()
	s := h.dp.settingsSchema()
	s["properties"].(map[string]any)["zones"] = map[string]any{"type": "array", "maxItems": 2, "items": map[string]any{"type": "string"}}
	h.dp.setSchema(s)
	set := types.SetValueMust(types.StringType, []attr.Value{types.StringValue("a"), types.StringValue("b"), types.StringUnknown()})
	cfg := demoConfig(nil)
	cfg.Settings = types.DynamicValue(types.ObjectValueMust(map[string]attr.Type{"zones": set.Type(t.Context())}, map[string]attr.Value{"zones": set}))
	st := h.planAndApply(nil, nil, cfg)
	text := diagText(st.plan.Diagnostics)
	if strings.Contains(text, "at most") || !strings.Contains(text, "Not checked at plan: settings.zones") {
		t.Fatalf("want the length checks of settings.zones skipped:\n%s", text)
	}
}
