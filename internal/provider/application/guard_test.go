package application

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

const guardSecret = "s3cret-pw-1"

// createWithSecret creates demo/app with auth.password from
// sensitive_settings and returns its state and private data.
func createWithSecret(t *testing.T, h *harness) (applicationModel, step) {
	t.Helper()
	cfg := demoConfig(map[string]any{"replicas": 2})
	cfg.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"password": guardSecret}})
	cfg.SensitiveSettingsVersion = types.StringValue("1")
	st := h.planAndApply(nil, nil, cfg)
	if st.apply == nil || hasError(st.apply.Diagnostics) {
		t.Fatalf("create: %s%s", diagText(st.plan.Diagnostics), func() string {
			if st.apply == nil {
				return ""
			}
			return diagText(st.apply.Diagnostics)
		}())
	}
	if got := clusterSecret(h); got != guardSecret {
		t.Fatalf("create: auth.password in the cluster = %q", got)
	}
	return cfg, st
}

func clusterSecret(h *harness) string {
	app := h.dp.app("app")
	if app == nil {
		return ""
	}
	settings, _ := app["spec"].(map[string]any)["settings"].(map[string]any)
	auth, _ := settings["auth"].(map[string]any)
	s, _ := auth["password"].(string)
	return s
}

func withoutSecret(cfg applicationModel) applicationModel {
	cfg.SensitiveSettings = types.DynamicNull()
	return cfg
}

func stringMapOf(kv ...string) types.Map {
	m := map[string]attr.Value{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = types.StringValue(kv[i+1])
	}
	return types.MapValueMust(types.StringType, m)
}

// An update that writes the Application although its spec is unchanged
// (labels, annotations, field manager or conflict mode changed, or an
// update DP has not applied is applied again) sends the whole apply
// configuration: in a run that does not give sensitive_settings it would
// delete the secret. The plan refuses it, and nothing is written.
func TestPlan_RemovalGuardRunsOnMetadataOnlyUpdates(t *testing.T) {
	tests := []struct {
		name    string
		change  func(applicationModel) applicationModel
		pending bool
	}{
		{name: "labels", change: func(c applicationModel) applicationModel { c.Labels = stringMapOf("team", "a"); return c }},
		{name: "annotations", change: func(c applicationModel) applicationModel { c.Annotations = stringMapOf("note", "x"); return c }},
		{name: "field manager", change: func(c applicationModel) applicationModel { c.FieldManager = types.StringValue("other"); return c }},
		{name: "force conflicts", change: func(c applicationModel) applicationModel { c.ForceConflicts = types.BoolValue(true); return c }},
		{name: "pending update applied again", change: func(c applicationModel) applicationModel { return c }, pending: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			cfg, created := createWithSecret(t, h)
			private := created.private
			if tt.pending {
				private = withPending(t, private)
			}
			writes := h.dp.patchCount()
			st := h.planAndApply(created.state, private, withoutSecret(tt.change(cfg)))
			if !hasError(st.plan.Diagnostics) || !strings.Contains(diagText(st.plan.Diagnostics), "Secrets would be removed") {
				t.Fatalf("plan did not refuse to remove the secret:\n%s", diagText(st.plan.Diagnostics))
			}
			if !strings.Contains(diagText(st.plan.Diagnostics), "auth.password") {
				t.Fatalf("the error does not name the path:\n%s", diagText(st.plan.Diagnostics))
			}
			if h.dp.patchCount() != writes || clusterSecret(h) != guardSecret {
				t.Fatal("the Application was written without its secret")
			}
		})
	}
}

// The same updates with the secret given plan and apply, keep the secret
// and record its path again.
func TestPlan_MetadataOnlyUpdateWithTheSecretKeepsIt(t *testing.T) {
	h := newHarness(t)
	cfg, created := createWithSecret(t, h)
	next := cfg
	next.Labels = stringMapOf("team", "a")
	st := h.planAndApply(created.state, created.private, next)
	if st.apply == nil || hasError(st.apply.Diagnostics) {
		t.Fatalf("update failed:\n%s", diagText(st.plan.Diagnostics))
	}
	if clusterSecret(h) != guardSecret {
		t.Fatal("the labels update lost the secret")
	}
	if got := privateFromJSON(t, st.private).SensitivePaths; len(got) != 1 || got[0].display() != "auth.password" {
		t.Fatalf("recorded sensitive paths %v, want [auth.password]", got)
	}
}

// withPending adds apply_pending to the private data of a state.
func withPending(t *testing.T, private []byte) []byte {
	t.Helper()
	var m map[string][]byte
	if err := json.Unmarshal(private, &m); err != nil {
		t.Fatal(err)
	}
	m[keyApplyPending] = []byte(`true`)
	b, _ := json.Marshal(m)
	return b
}

// privateFromJSON decodes private data as the protocol carries it.
func privateFromJSON(t *testing.T, private []byte) privateState {
	t.Helper()
	var m map[string][]byte
	if len(private) > 0 {
		if err := json.Unmarshal(private, &m); err != nil {
			t.Fatal(err)
		}
	}
	return privateFromMap(m)
}

// A recorded secret path given as null (a variable that is null in this
// run) removes the secret as surely as leaving it out: the guard refuses it.
func TestPlan_RemovalGuardRefusesANullSecret(t *testing.T) {
	for _, change := range []string{"settings", "labels"} {
		t.Run(change, func(t *testing.T) {
			h := newHarness(t)
			cfg, created := createWithSecret(t, h)
			next := cfg
			next.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"password": nil}})
			if change == "settings" {
				next.Settings = convert.ToDynamic(map[string]any{"replicas": 3})
			} else {
				next.Labels = stringMapOf("team", "a")
			}
			writes := h.dp.patchCount()
			st := h.planAndApply(created.state, created.private, next)
			if !strings.Contains(diagText(st.plan.Diagnostics), "Secrets would be removed") {
				t.Fatalf("plan did not refuse a null secret:\n%s", diagText(st.plan.Diagnostics))
			}
			if h.dp.patchCount() != writes || clusterSecret(h) != guardSecret {
				t.Fatal("the Application was written without its secret")
			}
		})
	}
}

// An unknown sensitive_settings_version at plan does not turn the guard
// off: the plan warns, and the apply, where the version is known, refuses
// to write when it did not change.
func TestPlan_UnknownSensitiveSettingsVersionKeepsTheGuard(t *testing.T) {
	h := newHarness(t)
	cfg, created := createWithSecret(t, h)
	next := withoutSecret(cfg)
	next.Settings = convert.ToDynamic(map[string]any{"replicas": 3})
	next.SensitiveSettingsVersion = types.StringUnknown()
	prior := h.model(created.state)
	planResp, err := h.srv.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: created.state, ProposedNewState: encodeModel(t, proposed(&prior, next)),
		Config: encodeModel(t, next), PriorPrivate: created.private,
	})
	if err != nil {
		t.Fatal(err)
	}
	if hasError(planResp.Diagnostics) || !strings.Contains(diagText(planResp.Diagnostics), "Secret removal checked at apply") {
		t.Fatalf("want a warning that apply checks the removal:\n%s", diagText(planResp.Diagnostics))
	}
	// At apply the version turns out unchanged.
	final := next
	final.SensitiveSettingsVersion = types.StringValue("1")
	planned := decodeToModel(t, planResp.PlannedState)
	planned.SensitiveSettingsVersion = types.StringValue("1")
	writes := h.dp.patchCount()
	applyResp, err := h.srv.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: created.state, PlannedState: encodeModel(t, planned), Config: encodeModel(t, final),
		PlannedPrivate: planResp.PlannedPrivate,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diagText(applyResp.Diagnostics), "Secrets would be removed") {
		t.Fatalf("apply did not refuse:\n%s", diagText(applyResp.Diagnostics))
	}
	if h.dp.patchCount() != writes || clusterSecret(h) != guardSecret {
		t.Fatal("the Application was written without its secret")
	}
	if got := privateFromJSON(t, applyResp.Private).SensitivePaths; len(got) != 1 {
		t.Fatalf("the refused apply changed the recorded paths to %v", got)
	}
	if !decodeModel(t, applyResp.NewState).Equal(decodeModel(t, created.state)) {
		t.Fatal("the refused apply changed the state")
	}

}
