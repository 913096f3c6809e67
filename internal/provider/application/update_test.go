package application

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// An update whose write may have landed (the reply was lost) records
// apply_pending: the next plan shows the update again, although a refresh
// would find the written settings in the cluster. Its error says what
// happened to an update; adoption is a create's word.
func TestUpdate_LostReplySetsApplyPending(t *testing.T) {
	h := newHarness(t)
	cfg, created := createWithSecret(t, h)
	h.dp.DropReplies(true)
	next := cfg
	next.Settings = convert.ToDynamic(map[string]any{"replicas": 3})
	next.Timeouts = timeouts.Value{Object: types.ObjectValueMust(
		map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
		map[string]attr.Value{"create": types.StringNull(), "update": types.StringValue("2s"), "delete": types.StringNull()})}
	st := h.planAndApply(created.state, created.private, next)
	if st.apply == nil || !hasError(st.apply.Diagnostics) {
		t.Fatalf("want a failed update:\n%s", diagText(st.plan.Diagnostics))
	}
	text := diagText(st.apply.Diagnostics)
	if strings.Contains(text, "adopt") || !strings.Contains(text, "may have reached the API server") {
		t.Fatalf("the error does not describe a lost update reply:\n%s", text)
	}
	if !privateFromJSON(t, st.private).ApplyPending {
		t.Fatalf("apply_pending not recorded: %s", st.private)
	}
	if privateFromJSON(t, st.private).UID == "" || len(privateFromJSON(t, st.private).SensitivePaths) != 1 {
		t.Fatalf("the rest of the private state was lost: %s", st.private)
	}
	// DP rejects the generation that landed; a refresh finds the written
	// settings, and the plan of the same configuration still shows the
	// update, which applies it again.
	h.dp.DropReplies(false)
	h.dp.editApp("app", func(_, obj map[string]any) {
		conds := obj["status"].(map[string]any)["conditions"].([]any)
		conds[0].(map[string]any)["status"], conds[0].(map[string]any)["reason"] = "False", "SettingsInvalid"
	})
	read := h.read(st.state, st.private)
	if hasError(read.Diagnostics) {
		t.Fatalf("read: %s", diagText(read.Diagnostics))
	}
	if got := h.model(read.NewState).Settings; !got.Equal(next.Settings) {
		t.Fatalf("the refresh did not find the written settings: %v", got)
	}
	again := h.planAndApply(read.NewState, read.Private, next)
	if !strings.Contains(diagText(again.plan.Diagnostics), "Settings not applied by DP yet") || again.apply == nil || hasError(again.apply.Diagnostics) {
		t.Fatalf("the update was not planned and applied again:\n%s", diagText(again.plan.Diagnostics))
	}
	if privateFromJSON(t, again.private).ApplyPending {
		t.Fatal("apply_pending stays after a successful update")
	}
}
