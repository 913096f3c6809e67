package application

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
)

const foreignSecret = "foreign-admin-pw-6502"

// withForeignPassword adds auth.password (owned by kubectl-edit's Update
// entry) to Application demo/app, and DP's status quoting it.
func withForeignPassword(h *harness) {
	h.dp.Edit("demo", "app", func(obj map[string]any) {
		spec := obj["spec"].(map[string]any)
		settings, _ := spec["settings"].(map[string]any)
		if settings == nil {
			settings = map[string]any{}
			spec["settings"] = settings
		}
		settings["auth"] = map[string]any{"password": foreignSecret}
		md := obj["metadata"].(map[string]any)
		entries, _ := md["managedFields"].([]any)
		md["managedFields"] = append(entries, map[string]any{"manager": "kubectl-edit", "operation": "Update",
			"apiVersion": "deckhouse.io/v1alpha1", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:settings": map[string]any{"f:auth": map[string]any{"f:password": map[string]any{}}}}}})
		if st, ok := obj["status"].(map[string]any); ok {
			st["summary"] = map[string]any{"state": "Ready", "message": "admin password " + foreignSecret + " still in use"}
		}
	})
}

// refuseWrites makes DP's webhook refuse every write, quoting value.
func refuseWrites(h *harness, value string) {
	h.dp.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPatch {
			return false
		}
		dpfake.Status(w, http.StatusUnprocessableEntity, "Invalid",
			`admission webhook "applications.deckhouse.io" denied the request: auth.password `+value+` is in use`)
		return true
	})
}

// DP's texts in a refused write (DP's webhook) and in a delete that timed
// out are redacted of every value the state does not hold, as the refresh
// redacts status: another field manager's value, and an imported
// Application's values before the first apply; not only of
// sensitive_settings.
func TestDPTexts_RefusedWritesAndDeleteTimeoutsCarryNoValueTheStateDoesNotHold(t *testing.T) {
	t.Run("another manager's value in a refused write", func(t *testing.T) {
		h := newHarness(t)
		created := h.planAndApply(nil, nil, demoConfig(map[string]any{"replicas": 2}))
		if created.apply == nil || hasError(created.apply.Diagnostics) {
			t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
		}
		withForeignPassword(h)
		refuseWrites(h, foreignSecret)
		st := h.planAndApply(created.state, created.private, demoConfig(map[string]any{"replicas": 3}))
		text := diagText(append(st.plan.Diagnostics, st.applyDiags()...))
		if !hasError(st.applyDiags()) || !strings.Contains(text, "denied the request") {
			t.Fatalf("want the webhook's refusal:\n%s", text)
		}
		if strings.Contains(text, foreignSecret) {
			t.Fatalf("the refusal holds another manager's value:\n%s", text)
		}
	})
	t.Run("an imported Application's value in a refused write", func(t *testing.T) {
		h := newHarness(t)
		const importedSecret = "imported-pw-31337"
		h.dp.apply("app", map[string]any{"metadata": map[string]any{"name": "app", "namespace": "demo"},
			"spec": map[string]any{"packageName": "demo-app", "packageVersion": "v1.0.0", "packageRepositoryName": "demo",
				"settings": map[string]any{"replicas": 2, "auth": map[string]any{"password": importedSecret}}}})
		state, private := importApp(t, h)
		read := h.read(state, private)
		refuseWrites(h, importedSecret)
		st := h.planAndApply(read.NewState, read.Private, demoConfig(map[string]any{"replicas": 3}))
		text := diagText(append(st.plan.Diagnostics, st.applyDiags()...))
		if !hasError(st.applyDiags()) || !strings.Contains(text, "denied the request") {
			t.Fatalf("want the webhook's refusal:\n%s", text)
		}
		if strings.Contains(text, importedSecret) {
			t.Fatalf("the refusal holds the imported value:\n%s", text)
		}
	})
	t.Run("another manager's value in a delete timeout", func(t *testing.T) {
		h := newHarness(t)
		created := h.planAndApply(nil, nil, demoConfig(map[string]any{"replicas": 2}))
		if created.apply == nil || hasError(created.apply.Diagnostics) {
			t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
		}
		withForeignPassword(h)
		h.dp.KeepOnDelete(true)
		state := h.model(created.state)
		state.Timeouts = timeouts.Value{Object: types.ObjectValueMust(
			map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
			map[string]attr.Value{"create": types.StringNull(), "update": types.StringNull(), "delete": types.StringValue("1s")})}
		null, _ := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
		resp, err := h.srv.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
			TypeName: TypeName, PriorState: encodeModel(t, state), PlannedState: &null, Config: &null,
			PlannedPrivate: created.private,
		})
		if err != nil {
			t.Fatal(err)
		}
		text := diagText(resp.Diagnostics)
		if !hasError(resp.Diagnostics) || !strings.Contains(text, "Last status") {
			t.Fatalf("want a timeout quoting DP's status:\n%s", text)
		}
		if strings.Contains(text, foreignSecret) {
			t.Fatalf("the timeout holds another manager's value:\n%s", text)
		}
	})
}
