package application

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// tokensSchema is the demo schema with a map of tokens (keys the schema
// does not declare).
func tokensSchema(t *testing.T, h *harness) map[string]any {
	t.Helper()
	s := h.dp.settingsSchema()
	s["properties"].(map[string]any)["tokens"] = map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
	return s
}

// A map key given in sensitive_settings may be a secret: the private state
// (stored in the state file) records it hashed, a refresh still keeps its
// value out of settings, and the removal guard still finds it.
func TestPrivateState_MapKeysOfSensitiveSettingsStoredHashed(t *testing.T) {
	h := newHarness(t)
	h.dp.setSchema(tokensSchema(t, h))
	const key, value = "tenant-4f9a2c", "tok-value-77aa"
	cfg := demoConfig(map[string]any{"replicas": 2})
	cfg.SensitiveSettings = convert.ToDynamic(map[string]any{"tokens": map[string]any{key: value}})
	cfg.SensitiveSettingsVersion = types.StringValue("1")
	st := h.planAndApply(nil, nil, cfg)
	if st.apply == nil || hasError(st.apply.Diagnostics) {
		t.Fatalf("create: %s", diagText(st.plan.Diagnostics))
	}
	raw, _ := json.Marshal(st.private)
	for _, s := range [][]byte{st.private, raw} {
		if strings.Contains(string(s), key) || strings.Contains(string(s), base64.StdEncoding.EncodeToString([]byte(key))[:8]) {
			t.Fatalf("the private state holds the key: %s", s)
		}
	}
	if got := privateFromJSON(t, st.private).SensitivePaths; len(got) != 1 || got[0].display() != "tokens.*" {
		t.Fatalf("recorded paths %v, want [tokens.*]", got)
	}
	read := h.read(st.state, st.private)
	if hasError(read.Diagnostics) {
		t.Fatalf("read: %s", diagText(read.Diagnostics))
	}
	if b, _ := read.NewState.MsgPack, 0; strings.Contains(string(b), key) || strings.Contains(string(b), value) {
		t.Fatal("the refreshed state holds the key or the value")
	}
	next := withoutSecret(cfg)
	next.Labels = stringMapOf("team", "a")
	guarded := h.planAndApply(st.state, st.private, next)
	if !strings.Contains(diagText(guarded.plan.Diagnostics), "Secrets would be removed") {
		t.Fatalf("the guard did not find the hashed path:\n%s", diagText(guarded.plan.Diagnostics))
	}
}

// A key of sensitive_settings the schema does not declare is named in the
// "not declared" error: redacted there.
func TestPlan_UndeclaredKeyOfSensitiveSettingsRedacted(t *testing.T) {
	h := newHarness(t)
	const key = "zz-secret-key-91"
	cfg := demoConfig(map[string]any{"replicas": 2})
	cfg.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{key: "v"}})
	st := h.planAndApply(nil, nil, cfg)
	if !hasError(st.plan.Diagnostics) {
		t.Fatal("an undeclared key passed the plan")
	}
	if strings.Contains(diagText(st.plan.Diagnostics), key) {
		t.Fatalf("the error names the key:\n%s", diagText(st.plan.Diagnostics))
	}
}

// DP's messages in URL-encoded or base64 form of a secret, or with a
// number in another rendering, leave no trace in status.*.message of the
// state.
func TestState_StatusMessagesRedactedInEveryForm(t *testing.T) {
	h := newHarness(t)
	const pw = "p@ss:Zq81-secret"
	h.dp.SetMessage("connect postgres://app:" + url.QueryEscape(pw) + "@db: refused; basic " +
		base64.StdEncoding.EncodeToString([]byte("app:"+pw)) + "; limit 1e+06")
	cfg := demoConfig(map[string]any{"replicas": 2})
	cfg.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"password": pw}, "size": 1000000})
	cfg.SensitiveSettingsVersion = types.StringValue("1")
	st := h.planAndApply(nil, nil, cfg)
	if st.apply == nil || hasError(st.apply.Diagnostics) {
		t.Fatalf("create: %s", diagText(st.plan.Diagnostics))
	}
	check := func(step string, state []byte) {
		t.Helper()
		for _, needle := range []string{url.QueryEscape(pw), base64.StdEncoding.EncodeToString([]byte("app:" + pw))[4:16], "1e+06", pw} {
			if strings.Contains(string(state), needle) {
				t.Fatalf("%s: the state holds %q", step, needle)
			}
		}
		if !strings.Contains(string(state), redactedMarker) {
			t.Fatalf("%s: the state holds no redacted message", step)
		}
	}
	check("create", st.state.MsgPack)
	read := h.read(st.state, st.private)
	// Read sets a new state only when something changed: the message as DP
	// reports it is compared after redaction.
	check("refresh", read.NewState.MsgPack)
}
