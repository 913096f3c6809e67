package application

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// newLaggingHarness is newHarness with a DP that applies nothing by
// itself: the test sets each status DP's controller writes.
func newLaggingHarness(t *testing.T) *harness {
	t.Helper()
	dp := &fakeDP{Server: dpfake.New(t), t: t}
	dp.setSchema(dp.settingsSchema())
	p := &testProvider{}
	srv := providerserver.NewProtocol6(p)()
	configure(t, srv, dp.URL, "")
	return &harness{t: t, dp: dp, srv: srv, p: p}
}

func engineMerge(a, b map[string]any) map[string]any {
	out, _ := engine.Merge(a, b).(map[string]any)
	return out
}

// appliedStatus is the status DP's controller writes once it has applied
// generation gen with the effective settings record, its message quoting msg.
func appliedStatus(gen int64, record map[string]any, msg string) map[string]any {
	return map[string]any{
		"summary":                  map[string]any{"state": "Ready", "message": msg},
		"currentVersion":           map[string]any{"version": "v1.0.0"},
		"lastAppliedConfiguration": record,
		"conditions": []any{map[string]any{"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied",
			"message": msg, "observedGeneration": gen, "lastTransitionTime": "2026-01-01T00:00:00Z"}},
	}
}

// A value sensitive_settings wrote stays out of the state after a write
// that no longer writes it (removed, or rotated to a new value) while DP's
// record is of the earlier generation that holds it (DP lags behind, or
// rejected the new one): last_applied_settings, DP's texts in status and the
// private state hold neither the old value nor the new one. Once DP has
// applied a generation without the path, the private state forgets it.
func TestSecrets_WrittenValuesStayRedactedUntilDPAppliesAGenerationWithoutThem(t *testing.T) {
	const oldValue, newValue = "old-user-secret-4711", "new-user-secret-0815"
	tests := []struct {
		name        string
		sensitive   map[string]any // of the second write
		wantRetired int            // retired paths while DP lags
	}{
		{name: "removed", sensitive: nil, wantRetired: 1},
		{name: "rotated", sensitive: map[string]any{"auth": map[string]any{"user": newValue}}},
		{name: "renamed", sensitive: map[string]any{"tlsSecretName": newValue}, wantRetired: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newLaggingHarness(t)
			cfg := demoConfig(map[string]any{"replicas": 2})
			cfg.Wait = types.BoolValue(false)
			cfg.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"user": oldValue}})
			cfg.SensitiveSettingsVersion = types.StringValue("1")
			created := h.planAndApply(nil, nil, cfg)
			if created.apply == nil || hasError(created.apply.Diagnostics) {
				t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
			}
			gen1 := h.dp.app("app")["metadata"].(map[string]any)["generation"].(int64)
			// DP applies the first generation.
			h.dp.SetStatus("demo", "app", appliedStatus(gen1, map[string]any{"replicas": 2, "auth": map[string]any{"user": oldValue}},
				"user "+oldValue+" in use"))
			created.state = h.read(created.state, created.private).NewState

			next := cfg
			next.SensitiveSettings = convert2Dynamic(tt.sensitive)
			next.SensitiveSettingsVersion = types.StringValue("2")
			updated := h.planAndApply(created.state, created.private, next)
			if updated.apply == nil || hasError(updated.apply.Diagnostics) {
				t.Fatalf("update: %s", diagText(updated.plan.Diagnostics))
			}
			gen2 := h.dp.app("app")["metadata"].(map[string]any)["generation"].(int64)
			record2 := map[string]any{"replicas": 2}
			if tt.sensitive != nil {
				record2 = engineMerge(record2, tt.sensitive)
			}
			// DP's record is still of the first generation: it quotes the old value.
			for what, b := range map[string][]byte{"state": updated.state.MsgPack, "private state": updated.private,
				"diagnostics": []byte(diagText(updated.apply.Diagnostics))} {
				for _, v := range []string{oldValue, newValue} {
					if strings.Contains(string(b), v) {
						t.Errorf("the applied %s holds %q", what, v)
					}
				}
			}
			read := h.read(updated.state, updated.private)
			if hasError(read.Diagnostics) {
				t.Fatalf("read: %s", diagText(read.Diagnostics))
			}
			for what, b := range map[string][]byte{"state": read.NewState.MsgPack, "private state": read.Private,
				"diagnostics": []byte(diagText(read.Diagnostics))} {
				for _, v := range []string{oldValue, newValue} {
					if strings.Contains(string(b), v) {
						t.Errorf("the refreshed %s holds %q", what, v)
					}
				}
			}
			if got := privateFromJSON(t, read.Private).RetiredPaths; len(got) != tt.wantRetired {
				t.Fatalf("retired paths while DP lags: %v, want %d", got, tt.wantRetired)
			}

			// DP applies the second generation: nothing is retired any more.
			h.dp.SetStatus("demo", "app", appliedStatus(gen2, record2, "ready"))
			settled := h.read(read.NewState, read.Private)
			if got := privateFromJSON(t, settled.Private).RetiredPaths; len(got) != 0 {
				t.Fatalf("retired paths after DP applied generation %v: %v", gen2, got)
			}
		})
	}
}

// DP's text about a generation it rejected quotes that generation's
// values. Once a write replaced it (the secret rotated with wait = false),
// neither spec.settings nor DP's record holds the old value any more, so
// no redactor can see it: the text is withheld from the state, the
// diagnostics and the refresh until DP reports on a later generation.
func TestSecrets_RejectedGenerationsTextIsWithheldOnceAWriteReplacedIt(t *testing.T) {
	const oldValue, newValue = "old-user-secret-2718", "new-user-secret-3141"
	h := newLaggingHarness(t)
	cfg := demoConfig(map[string]any{"replicas": 2})
	cfg.Wait = types.BoolValue(false)
	cfg.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"user": oldValue}})
	cfg.SensitiveSettingsVersion = types.StringValue("1")
	created := h.planAndApply(nil, nil, cfg)
	if created.apply == nil || hasError(created.apply.Diagnostics) {
		t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
	}
	gen1 := h.dp.app("app")["metadata"].(map[string]any)["generation"].(int64)
	refused := "user " + oldValue + " is refused"
	h.dp.SetStatus("demo", "app", map[string]any{
		"summary": map[string]any{"state": "Failed", "message": refused},
		"conditions": []any{map[string]any{"type": "ConfigurationApplied", "status": "False", "reason": "SettingsInvalid",
			"message": refused, "observedGeneration": gen1, "lastTransitionTime": "2026-01-01T00:00:00Z"}},
	})
	created.state = h.read(created.state, created.private).NewState

	next := cfg
	next.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"user": newValue}})
	next.SensitiveSettingsVersion = types.StringValue("2")
	updated := h.planAndApply(created.state, created.private, next)
	if updated.apply == nil || hasError(updated.apply.Diagnostics) {
		t.Fatalf("update: %s", diagText(updated.plan.Diagnostics))
	}
	read := h.read(updated.state, updated.private)
	for what, b := range map[string][]byte{"applied state": updated.state.MsgPack, "applied diagnostics": []byte(diagText(updated.apply.Diagnostics)),
		"refreshed state": read.NewState.MsgPack, "refreshed diagnostics": []byte(diagText(read.Diagnostics))} {
		for _, v := range []string{oldValue, newValue} {
			if strings.Contains(string(b), v) {
				t.Errorf("the %s holds %q", what, v)
			}
		}
	}
	if !strings.Contains(string(read.NewState.MsgPack), "withheld") {
		t.Errorf("the refreshed status does not say DP's text is withheld")
	}
}

// The private state's retired paths follow the writes: a path the last
// write took is not retired; one it no longer takes is retired since the
// write's generation (or since an earlier one it was retired at), and a
// write whose landing is unknown (generation 0) leaves the generation open
// until a later write lands; DP applying that generation or a later one
// settles it.
func TestPrivateState_RetiredPathsFollowWritesAndDPsAppliedGeneration(t *testing.T) {
	a, b := sensitivePath{"auth", "user"}, sensitivePath{"storage", "url"}
	tests := []struct {
		name    string
		prior   privateState
		paths   []sensitivePath
		gen     int64
		applied int64
		want    []retiredPath
	}{
		{name: "kept", prior: privateState{SensitivePaths: []sensitivePath{a}}, paths: []sensitivePath{a}, gen: 2},
		{name: "removed", prior: privateState{SensitivePaths: []sensitivePath{a}}, gen: 2, applied: 1,
			want: []retiredPath{{Path: a, Since: 2}}},
		{name: "removed, DP applied it", prior: privateState{SensitivePaths: []sensitivePath{a}}, gen: 2, applied: 2},
		{name: "renamed", prior: privateState{SensitivePaths: []sensitivePath{a}}, paths: []sensitivePath{b}, gen: 3, applied: 2,
			want: []retiredPath{{Path: a, Since: 3}}},
		{name: "retired earlier keeps its generation", prior: privateState{RetiredPaths: []retiredPath{{Path: a, Since: 2}}}, gen: 3, applied: 1,
			want: []retiredPath{{Path: a, Since: 2}}},
		{name: "retired earlier written again", prior: privateState{RetiredPaths: []retiredPath{{Path: a, Since: 2}}},
			paths: []sensitivePath{a}, gen: 3},
		{name: "open generation closed by a landed write", prior: privateState{RetiredPaths: []retiredPath{{Path: b}}}, gen: 4, applied: 3,
			want: []retiredPath{{Path: b, Since: 4}}},
		{name: "hashed and plain are one path", prior: privateState{SensitivePaths: []sensitivePath{{"auth", keyHash("demo/app", "user")}}},
			paths: []sensitivePath{a}, gen: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := privateState{RetiredPaths: tt.prior.afterWrite(tt.paths, tt.gen, "demo/app")}.settled(tt.applied)
			if !jsonvalue.Equal(p.RetiredPaths, tt.want) {
				t.Fatalf("retired %v, want %v", p.RetiredPaths, tt.want)
			}
			round := decodePrivate(func(k string) []byte { return p.encode()[k] })
			if !jsonvalue.Equal(round.RetiredPaths, tt.want) {
				t.Fatalf("decoded %v, want %v", round.RetiredPaths, tt.want)
			}
		})
	}
}

// The private state's taken-over paths follow the writes: a path another
// manager owned before a write is kept since the write's generation (or an
// earlier one it was kept at); a write whose landing is unknown (generation
// 0) leaves the generation open until a later write lands; DP applying that
// generation or a later one settles it.
func TestPrivateState_TakenOverPathsFollowWritesAndDPsAppliedGeneration(t *testing.T) {
	a, b := []string{"extra", "a"}, []string{"domain"}
	tests := []struct {
		name    string
		prior   []retiredPath
		taken   [][]string
		gen     int64
		applied int64
		want    []retiredPath
	}{
		{name: "nothing taken over", gen: 2, applied: 1},
		{name: "taken over, DP lags", taken: [][]string{a}, gen: 2, applied: 1, want: []retiredPath{{Path: a, Since: 2}}},
		{name: "taken over, DP applied it", taken: [][]string{a}, gen: 2, applied: 2},
		{name: "kept earlier keeps its generation", prior: []retiredPath{{Path: a, Since: 2}}, taken: [][]string{a, b}, gen: 3, applied: 1,
			want: []retiredPath{{Path: a, Since: 2}, {Path: b, Since: 3}}},
		{name: "open generation closed by a landed write", prior: []retiredPath{{Path: a}}, gen: 4, applied: 3,
			want: []retiredPath{{Path: a, Since: 4}}},
		{name: "write of unknown landing", taken: [][]string{a}, applied: 5, want: []retiredPath{{Path: a}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prior := privateState{TakenOverPaths: tt.prior}
			p := privateState{TakenOverPaths: prior.takenOverAfterWrite(tt.taken, tt.gen, "demo/app")}.settled(tt.applied)
			if !jsonvalue.Equal(p.TakenOverPaths, tt.want) {
				t.Fatalf("taken over %v, want %v", p.TakenOverPaths, tt.want)
			}
			round := decodePrivate(func(k string) []byte { return p.encode()[k] })
			if !jsonvalue.Equal(round.TakenOverPaths, tt.want) || len(round.tracked()) != 0 {
				t.Fatalf("decoded %v (tracked %v), want %v and nothing tracked", round.TakenOverPaths, round.tracked(), tt.want)
			}
		})
	}
}

// The one redactor of DP's texts removes every value the state does not
// hold: values of spec.settings it does not hold (sensitive, another
// manager's), the values spec.settings and DP's record hold at a tracked
// sensitive path (of any generation, rotated included), keys recorded
// hashed; it keeps what the state holds, and the defaults DP's record adds
// (the state holds them as effective_settings).
func TestDPRedactor_RemovesWhatTheStateDoesNotHoldAndKeepsDefaults(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"namespace": "demo", "name": "app"},
		"spec": map[string]any{"settings": map[string]any{
			"replicas": int64(2), "auth": map[string]any{"user": "new-user-4242"}, "other": "foreign-val-77",
			"tokens": map[string]any{"tenant-key-99": "tok-1234"}}},
		"status": map[string]any{"lastAppliedConfiguration": map[string]any{
			"replicas": int64(2), "logLevel": "Info", "auth": map[string]any{"user": "old-user-1313", "role": "admin"},
			"retired": "retired-val-55"}},
	}}
	held := map[string]any{"replicas": int64(2)}
	priv := privateState{
		SensitivePaths: []sensitivePath{{"auth", "user"}, {"tokens", keyHash("demo/app", "tenant-key-99")}},
		RetiredPaths:   []retiredPath{{Path: sensitivePath{"retired"}, Since: 3}},
	}
	r := redactorOf(obj, priv, held, nil)
	for _, secret := range []string{"new-user-4242", "old-user-1313", "foreign-val-77", "tenant-key-99", "tok-1234", "retired-val-55"} {
		if got := r.Redact("value " + secret + " here"); got != "value "+redactedMarker+" here" {
			t.Errorf("%q not redacted: %q", secret, got)
		}
	}
	for _, kept := range []string{"replicas 2", "logLevel Info", "role admin"} {
		if got := r.Redact(kept); got != kept {
			t.Errorf("%q redacted: %q", kept, got)
		}
	}
	imported := redactorOf(obj, privateState{Imported: true}, held, nil)
	if got := imported.Redact("replicas 2"); got != "replicas "+redactedMarker {
		t.Errorf("an imported Application's value kept: %q", got)
	}
}

// A settings key another manager wrote and the configuration takes over
// later keeps that manager's value out of last_applied_settings while DP's
// record is of a generation before the write that took it over (wait =
// false, or DP lags or rejects): the state and the refreshed state hold the
// configuration's value in settings and no other manager's value. Once DP
// has applied the write's generation, the private state forgets the path
// and DP's record is read as it is.
func TestTakenOverSettings_OtherManagersValueStaysOutOfLastAppliedUntilDPAppliesTheTakeover(t *testing.T) {
	const foreign, mine = "foreign-value-3141", "own-value-2718"
	h := newLaggingHarness(t)
	cfg := demoConfig(map[string]any{"replicas": 2})
	cfg.Wait = types.BoolValue(false)
	created := h.planAndApply(nil, nil, cfg)
	if created.apply == nil || hasError(created.apply.Diagnostics) {
		t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
	}
	// Another manager writes auth.user, and DP applies it.
	h.dp.Edit("demo", "app", func(obj map[string]any) {
		obj["spec"].(map[string]any)["settings"].(map[string]any)["auth"] = map[string]any{"user": foreign}
		md := obj["metadata"].(map[string]any)
		md["generation"] = md["generation"].(int64) + 1
		entries, _ := md["managedFields"].([]any)
		md["managedFields"] = append(entries, map[string]any{"manager": "kubectl-edit", "operation": "Update",
			"apiVersion": "deckhouse.io/v1alpha1", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:settings": map[string]any{"f:auth": map[string]any{"f:user": map[string]any{}}}}}})
	})
	gen := h.dp.app("app")["metadata"].(map[string]any)["generation"].(int64)
	h.dp.SetStatus("demo", "app", appliedStatus(gen, map[string]any{"replicas": 2, "auth": map[string]any{"user": foreign}}, "ready"))
	read := h.read(created.state, created.private)
	if hasError(read.Diagnostics) {
		t.Fatalf("read: %s", diagText(read.Diagnostics))
	}

	// The configuration takes auth.user over; DP's record stays of the
	// generation before.
	next := demoConfig(map[string]any{"replicas": 2, "auth": map[string]any{"user": mine}})
	next.Wait = types.BoolValue(false)
	updated := h.planAndApply(read.NewState, read.Private, next)
	if updated.apply == nil || hasError(updated.apply.Diagnostics) {
		t.Fatalf("update: %s", diagText(updated.plan.Diagnostics))
	}
	// As the API server records the takeover: kubectl-edit no longer owns
	// auth.user (the fake keeps every other manager's entry as it is).
	h.dp.Edit("demo", "app", func(obj map[string]any) {
		md := obj["metadata"].(map[string]any)
		var kept []any
		for _, e := range md["managedFields"].([]any) {
			if e.(map[string]any)["manager"] != "kubectl-edit" {
				kept = append(kept, e)
			}
		}
		md["managedFields"] = kept
	})
	gen2 := h.dp.app("app")["metadata"].(map[string]any)["generation"].(int64)
	if gen2 <= gen {
		t.Fatalf("the takeover wrote no new generation: %d after %d", gen2, gen)
	}
	refreshed := h.read(updated.state, updated.private)
	if hasError(refreshed.Diagnostics) {
		t.Fatalf("read: %s", diagText(refreshed.Diagnostics))
	}
	for what, b := range map[string][]byte{"applied state": updated.state.MsgPack, "refreshed state": refreshed.NewState.MsgPack,
		"private state": refreshed.Private, "diagnostics": []byte(diagText(refreshed.Diagnostics))} {
		if strings.Contains(string(b), foreign) {
			t.Errorf("the %s holds the other manager's value %q", what, foreign)
		}
	}
	if !strings.Contains(string(refreshed.NewState.MsgPack), mine) {
		t.Errorf("the refreshed state lost the configuration's value %q", mine)
	}
	if got := privateFromJSON(t, refreshed.Private).TakenOverPaths; len(got) != 1 || got[0].Since != gen2 {
		t.Fatalf("taken-over paths while DP lags: %v, want auth.user since %d", got, gen2)
	}

	// DP applies the takeover: its record is read as it is.
	h.dp.SetStatus("demo", "app", appliedStatus(gen2, map[string]any{"replicas": 2, "auth": map[string]any{"user": mine}}, "ready"))
	settled := h.read(refreshed.NewState, refreshed.Private)
	if got := privateFromJSON(t, settled.Private).TakenOverPaths; len(got) != 0 {
		t.Fatalf("taken-over paths after DP applied generation %d: %v", gen2, got)
	}
}
