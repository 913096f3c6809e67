package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestAccStateUpgrade_EarlierSchemaVersionsUpgradeAndPlanNoChange:
// a state of an earlier schema version (each fixture below), refreshed
// through each CLI, is stored with the current schema version (2) and then
// plans no change:
//
//   - effective_settings and last_applied_settings, which versions 0 and 1
//     store as dynamic values ({"value": …, "type": …}), become strings, each
//     holding its value's document in the canonical JSON encoding;
//     last_applied_settings is null where it held the same document as
//     effective_settings (version 0 stores DP's record twice, version 1 once);
//   - version 0's status loses its conditions (the data sources carry them);
//   - every other attribute holds the value stored, numbers written alike
//     (attributes the fixture's provider did not have are null).
func TestAccStateUpgrade_EarlierSchemaVersionsUpgradeAndPlanNoChange(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the CLIs and the local control plane (TF_ACC=1)")
	}
	for _, tc := range []struct {
		fixture       string
		schemaVersion int
	}{
		{"schema-0", 0},
		{"schema-1", 1},
	} {
		for name, cliPath := range clis(t) {
			t.Run(tc.fixture+"/"+name, func(t *testing.T) {
				t.Parallel()
				c, state := newFixtureEnv(t, tc.fixture).workdir(name, cliPath)
				before := stateInstance(t, []byte(state))
				if before.SchemaVersion != tc.schemaVersion {
					t.Fatalf("the %s fixture has schema_version %d, want %d", tc.fixture, before.SchemaVersion, tc.schemaVersion)
				}

				if res := c.run(nil, "apply", "-refresh-only", "-auto-approve"); res.Code != 0 {
					t.Fatalf("refresh of the %s state: exit %d:\n%s", tc.fixture, res.Code, res.Output())
				}
				raw, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
				if err != nil {
					t.Fatal(err)
				}
				after := stateInstance(t, raw)
				if after.SchemaVersion != 2 {
					t.Errorf("schema_version = %d, want 2", after.SchemaVersion)
				}
				checkUpgradedSettings(t, before, after)
				changed := map[string]bool{"effective_settings": true, "last_applied_settings": true}
				if tc.schemaVersion == 0 {
					changed["status"] = true
					checkStatusWithoutConditions(t, before, after)
				}
				for k := range union(before.Attributes, after.Attributes) {
					if !changed[k] && !sameJSON(before.Attributes[k], after.Attributes[k]) {
						t.Errorf("%s = %s, want %s as stored", k, after.Attributes[k], before.Attributes[k])
					}
				}
				if res := c.run(nil, "plan", "-detailed-exitcode"); res.Code != 0 || !outputHas(res, "No changes.") {
					t.Fatalf("plan after the upgrade: exit %d, want 0 (no changes):\n%s", res.Code, res.Output())
				}
			})
		}
	}
}

// checkUpgradedSettings checks effective_settings and last_applied_settings
// of a state upgraded from one that stored them as dynamic values: JSON
// strings in the canonical encoding holding the stored values' documents,
// last_applied_settings null where it equalled effective_settings.
func checkUpgradedSettings(t *testing.T, before, after storedInstance) {
	t.Helper()
	effective := dynamicValueOf(t, before.Attributes["effective_settings"])
	wantDoc := map[string]any{
		"effective_settings":    effective,
		"last_applied_settings": dynamicValueOf(t, before.Attributes["last_applied_settings"]),
	}
	if reflect.DeepEqual(wantDoc["last_applied_settings"], effective) {
		wantDoc["last_applied_settings"] = nil
	}
	for _, k := range []string{"effective_settings", "last_applied_settings"} {
		want := wantDoc[k]
		var s *string
		if err := json.Unmarshal(after.Attributes[k], &s); err != nil {
			t.Errorf("%s = %s, want a JSON string or null: %v", k, after.Attributes[k], err)
			continue
		}
		switch {
		case s == nil && want == nil:
		case s == nil:
			t.Errorf("%s = null, want the document %v", k, want)
		case want == nil:
			t.Errorf("%s = %q, want null", k, *s)
		default:
			got, err := decodeJSONDocument(*s)
			if err == nil {
				err = checkCanonicalJSON(*s)
			}
			if err != nil {
				t.Errorf("%s: %v", k, err)
			} else if !reflect.DeepEqual(numbersByValue(got), numbersByValue(want)) {
				t.Errorf("%s = %s, want the document %v as stored", k, *s, want)
			}
		}
	}
}

// checkStatusWithoutConditions: status is as stored, without its conditions.
func checkStatusWithoutConditions(t *testing.T, before, after storedInstance) {
	t.Helper()
	var want map[string]json.RawMessage
	if err := json.Unmarshal(before.Attributes["status"], &want); err != nil {
		t.Fatalf("stored status %s: %v", before.Attributes["status"], err)
	}
	if _, ok := want["conditions"]; !ok {
		t.Fatalf("the stored status of schema version 0 has no conditions: %s", before.Attributes["status"])
	}
	delete(want, "conditions")
	var got map[string]json.RawMessage
	if err := json.Unmarshal(after.Attributes["status"], &got); err != nil {
		t.Fatalf("status %s: %v", after.Attributes["status"], err)
	}
	if _, ok := got["conditions"]; ok {
		t.Errorf("status holds conditions: %s", after.Attributes["status"])
	}
	for k := range union(want, got) {
		if !sameJSON(want[k], got[k]) {
			t.Errorf("status.%s = %s, want %s as stored", k, got[k], want[k])
		}
	}
	var state string
	_ = json.Unmarshal(got["state"], &state)
	if state != "Ready" {
		t.Errorf("status.state = %s, want Ready", got["state"])
	}
}

// dynamicValueOf is the value of a dynamic attribute as a state stores it
// ({"value": …, "type": …}), numbers as json.Number; nil for null.
func dynamicValueOf(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var dyn struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &dyn); err != nil || len(dyn.Value) == 0 {
		t.Fatalf("stored dynamic value %s: want {\"value\": …, \"type\": …} (%v)", raw, err)
	}
	v, err := decodeJSONDocument(string(dyn.Value))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sameJSON: a and b hold the same JSON value, numbers written alike (the
// CLIs write a dynamic value's members in an order of their own); a missing
// member is null.
func sameJSON(a, b json.RawMessage) bool {
	decode := func(r json.RawMessage) any {
		if len(r) == 0 {
			return nil
		}
		v, err := decodeJSONDocument(string(r))
		if err != nil {
			return string(r)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

func union[V any](a, b map[string]V) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// storedInstance is a resource instance of a state file.
type storedInstance struct {
	Attributes    map[string]json.RawMessage `json:"attributes"`
	SchemaVersion int                        `json:"schema_version"`
}

// stateInstance is the one resource instance of a state file.
func stateInstance(t *testing.T, raw []byte) storedInstance {
	t.Helper()
	var doc struct {
		Resources []struct {
			Instances []storedInstance `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Resources) != 1 || len(doc.Resources[0].Instances) != 1 {
		t.Fatalf("state holds %d resources, want one instance", len(doc.Resources))
	}
	return doc.Resources[0].Instances[0]
}
