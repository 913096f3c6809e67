package application

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// A state of schema version 0 (status with every condition, DP's record
// stored beside equal effective settings) upgrades to the current version:
// status without conditions, last_applied_settings null where it equals
// effective_settings, every other value as stored. The states are those
// earlier releases wrote (testdata/state), through the server the CLI talks
// to (the protocol shortcut leaves an earlier version to the framework).
func TestUpgradeState_Version0StoresDPsRecordOnceAndNoConditions(t *testing.T) {
	release := fixtureAttributes(t, "../testdata/state/release-0.1.0/terraform.tfstate")
	older := readJSONFile(t, "../testdata/state/application.json")
	differing := cloneJSON(t, release)
	differing["last_applied_settings"] = map[string]any{
		"value": map[string]any{"replicas": 1.0}, "type": []any{"object", map[string]any{"replicas": "number"}},
	}
	noRecord := cloneJSON(t, release)
	noRecord["last_applied_settings"] = nil
	noEffective := cloneJSON(t, release)
	noEffective["effective_settings"] = nil
	for _, tt := range []struct {
		name            string
		state           map[string]any
		keepLastApplied bool
	}{
		{name: "state of release 0.1.0", state: release},
		{name: "state before wait_for and status.urls", state: older},
		{name: "DP's record differs from the effective settings", state: differing, keepLastApplied: true},
		{name: "no record", state: noRecord, keepLastApplied: true},
		{name: "no effective settings", state: noEffective, keepLastApplied: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := upgradeV0(t, tt.state)
			for name, want := range tt.state {
				switch name {
				case "status":
					if status, ok := want.(map[string]any); ok {
						status = withoutNulls(status)
						delete(status, "conditions")
						want = status
						if status := got[name].(map[string]any); status["conditions"] != nil {
							t.Errorf("status.conditions = %v, want none", status["conditions"])
						}
						got[name] = withoutNulls(got[name].(map[string]any))
					}
				case "last_applied_settings":
					if !tt.keepLastApplied {
						want = nil
					}
				}
				if !reflect.DeepEqual(got[name], want) {
					t.Errorf("%s = %v, want %v", name, got[name], want)
				}
			}
		})
	}
}

// A version 0 state that is not a JSON object gets a diagnostic naming the
// resource, not a panic.
func TestUpgradeState_Version0ThatDoesNotDecodeIsADiagnostic(t *testing.T) {
	for _, raw := range []string{`[1,2]`, `{"status":"Ready"}`, `{"name":{"a":1}}`} {
		resp, err := newServers(t, "", "").shortcut.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
			TypeName: TypeName, Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(raw)},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Diagnostics) == 0 || !strings.Contains(resp.Diagnostics[0].Summary, "deckhouse_application") {
			t.Errorf("%s: diagnostics %v, want one naming deckhouse_application", raw, resp.Diagnostics)
		}
	}
}

// upgradedDynamic is the answer to the upgrade of a version 0 state.
func upgradedDynamic(t *testing.T, state map[string]any) *tfprotov6.DynamicValue {
	t.Helper()
	raw, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := newServers(t, "", "").shortcut.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
		TypeName: TypeName, Version: 0, RawState: &tfprotov6.RawState{JSON: raw},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) > 0 {
		t.Fatalf("upgrade: %s: %s", resp.Diagnostics[0].Summary, resp.Diagnostics[0].Detail)
	}
	return resp.UpgradedState
}

// upgradeV0 is the upgraded state as the CLI stores it (JSON, decoded).
func upgradeV0(t *testing.T, state map[string]any) map[string]any {
	t.Helper()
	dv := upgradedDynamic(t, state)
	raw := dv.JSON
	if len(raw) == 0 {
		ty := ctyStateType(t)
		v, err := ctymsgpack.Unmarshal(dv.MsgPack, ty)
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = ctyjson.Marshal(v, ty); err != nil {
			t.Fatal(err)
		}
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// fixtureAttributes are the attributes of the one resource instance of a
// stored state file.
func fixtureAttributes(t *testing.T, path string) map[string]any {
	t.Helper()
	var state struct {
		Resources []struct {
			Instances []struct {
				Attributes    map[string]any `json:"attributes"`
				SchemaVersion int            `json:"schema_version"`
			} `json:"instances"`
		} `json:"resources"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &state); err != nil {
		t.Fatal(err)
	}
	inst := state.Resources[0].Instances[0]
	if inst.SchemaVersion != 0 {
		t.Fatalf("%s: schema_version %d, want 0", path, inst.SchemaVersion)
	}
	return inst.Attributes
}

func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func cloneJSON(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutNulls is m without its null members, at every level (attributes
// the stored state lacked, which the upgrade gives as null).
func withoutNulls(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case map[string]any:
			out[k] = withoutNulls(v)
		default:
			out[k] = v
		}
	}
	return out
}

// The state holds DP's record once: last_applied_settings is null when it
// holds the document effective_settings holds, and the record otherwise.
func TestLastAppliedStored_NullWhenEqualToEffectiveSettings(t *testing.T) {
	t.Parallel()
	doc := func(v any) types.Dynamic { return convert.ToDynamic(v) }
	two, one := map[string]any{"replicas": 2}, map[string]any{"replicas": 1}
	for _, tt := range []struct {
		name              string
		record, effective types.Dynamic
		wantNull          bool
	}{
		{"equal", doc(two), doc(two), true},
		{"equal, numbers of other kinds", doc(map[string]any{"replicas": 2.0}), doc(map[string]any{"replicas": int64(2)}), true},
		{"record of earlier settings", doc(one), doc(two), false},
		{"no effective settings", doc(two), types.DynamicNull(), false},
		{"effective settings unknown", doc(two), types.DynamicUnknown(), false},
		{"no record", types.DynamicNull(), doc(two), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := lastAppliedStored(tt.record, tt.effective)
			if got.IsNull() != tt.wantNull {
				t.Fatalf("lastAppliedStored = %v, want null: %v", got, tt.wantNull)
			}
			if !tt.wantNull && !got.Equal(tt.record) {
				t.Fatalf("lastAppliedStored = %v, want the record %v", got, tt.record)
			}
		})
	}
}
