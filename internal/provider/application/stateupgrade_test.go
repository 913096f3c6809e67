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
// effective_settings, both settings documents as JSON strings, every other
// value as stored. The states are those the provider wrote before its first
// release (testdata/state), through the server the CLI talks to (the protocol
// shortcut leaves an earlier version to the framework).
func TestUpgradeState_Version0StoresDPsRecordOnceAndNoConditions(t *testing.T) {
	release := fixtureAttributes(t, "../testdata/state/schema-0/terraform.tfstate")
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
		{name: "state of schema version 0", state: release},
		{name: "state before wait_for and status.urls", state: older},
		{name: "DP's record differs from the effective settings", state: differing, keepLastApplied: true},
		{name: "no record", state: noRecord, keepLastApplied: true},
		{name: "no effective settings", state: noEffective, keepLastApplied: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := upgrade(t, 0, tt.state)
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
					want = jsonStringOfDynamic(t, want)
					if !tt.keepLastApplied {
						want = nil
					}
				case "effective_settings":
					want = jsonStringOfDynamic(t, want)
				}
				if !reflect.DeepEqual(got[name], want) {
					t.Errorf("%s = %v, want %v", name, got[name], want)
				}
			}
		})
	}
}

// A state of schema version 1 (the settings documents as dynamic values,
// stored with their type) upgrades to the current version: each document as
// its compact JSON string, with the encoding a plan computes
// (convert.ToJSONString), every other value as stored.
func TestUpgradeState_Version1StoresTheSettingsDocumentsAsJSONStrings(t *testing.T) {
	v1 := func(v0 map[string]any) map[string]any {
		t.Helper()
		raw, err := json.Marshal(v0)
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = upgradeV0JSON(raw); err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	release := v1(fixtureAttributes(t, "../testdata/state/schema-0/terraform.tfstate"))
	behind := cloneJSON(t, release)
	behind["last_applied_settings"] = map[string]any{
		"value": map[string]any{"replicas": 1.0, "host": "<a&b>"},
		"type":  []any{"object", map[string]any{"replicas": "number", "host": "string"}},
	}
	noEffective := cloneJSON(t, release)
	noEffective["effective_settings"], noEffective["last_applied_settings"] = nil, nil
	for _, tt := range []struct {
		name        string
		state       map[string]any
		lastApplied any
	}{
		{name: "DP applied the effective settings", state: release},
		{name: "DP's record of earlier settings", state: behind, lastApplied: `{"host":"<a&b>","replicas":1}`},
		{name: "no settings documents", state: noEffective},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := upgrade(t, 1, tt.state)
			for name, want := range tt.state {
				switch name {
				case "effective_settings":
					want = jsonStringOfDynamic(t, want)
				case "last_applied_settings":
					want = tt.lastApplied
				}
				if !reflect.DeepEqual(got[name], want) {
					t.Errorf("%s = %#v, want %#v", name, got[name], want)
				}
			}
		})
	}
}

// jsonStringOfDynamic is the JSON string of the value of a dynamic value as
// a state of version 0 or 1 stores it, as the plan encodes it (nil for null).
func jsonStringOfDynamic(t *testing.T, stored any) any {
	t.Helper()
	dyn, ok := stored.(map[string]any)
	if !ok || dyn["value"] == nil {
		return nil
	}
	return convert.ToJSONString(dyn["value"]).ValueString()
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

// upgradedDynamic is the answer to the upgrade of a state of version.
func upgradedDynamic(t *testing.T, version int64, state map[string]any) *tfprotov6.DynamicValue {
	t.Helper()
	raw, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := newServers(t, "", "").shortcut.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
		TypeName: TypeName, Version: version, RawState: &tfprotov6.RawState{JSON: raw},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) > 0 {
		t.Fatalf("upgrade: %s: %s", resp.Diagnostics[0].Summary, resp.Diagnostics[0].Detail)
	}
	return resp.UpgradedState
}

// upgrade is the upgraded state of a state of version as the CLI stores it
// (JSON, decoded).
func upgrade(t *testing.T, version int64, state map[string]any) map[string]any {
	t.Helper()
	dv := upgradedDynamic(t, version, state)
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
	doc := func(v any) types.String { return convert.ToJSONString(v) }
	two, one := map[string]any{"replicas": 2}, map[string]any{"replicas": 1}
	for _, tt := range []struct {
		name              string
		record, effective types.String
		wantNull          bool
	}{
		{"equal", doc(two), doc(two), true},
		{"equal, numbers of other kinds", doc(map[string]any{"replicas": 2.0}), doc(map[string]any{"replicas": int64(2)}), true},
		{"record of earlier settings", doc(one), doc(two), false},
		{"no effective settings", doc(two), types.StringNull(), false},
		{"effective settings unknown", doc(two), types.StringUnknown(), false},
		{"no record", types.StringNull(), doc(two), true},
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
