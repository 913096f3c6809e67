package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestAccStateUpgrade_Version0IsStoredLeanAndPlansNoChange: a state of
// schema version 0 (the fixture of release 0.1.0), refreshed through each
// CLI, is stored with the current schema version, the resource's status
// without conditions and DP's record once (last_applied_settings null beside
// effective_settings equal to it), the effective settings as they were; and
// a plan of it then shows no change.
func TestAccStateUpgrade_Version0IsStoredLeanAndPlansNoChange(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the CLIs and the local control plane (TF_ACC=1)")
	}
	const fixture = "release-0.1.0"
	for name, cliPath := range clis(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newFixtureEnv(t, fixture)
			app := e.seedFixtureApplication()
			c := newTofuCLI(t, false, e.vars()...)
			c.tofu = cliPath
			cfg, err := os.ReadFile(filepath.Join(e.dir, "main.tf"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(c.dir, "main.tf"), string(cfg))
			state := e.fillState(registryHost(name), app)
			writeFile(t, filepath.Join(c.dir, "terraform.tfstate"), state)
			before := stateInstance(t, []byte(state))

			if res := c.run(nil, "apply", "-refresh-only", "-auto-approve"); res.Code != 0 {
				t.Fatalf("refresh of the %s state: exit %d:\n%s", fixture, res.Code, res.Output())
			}
			raw, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
			if err != nil {
				t.Fatal(err)
			}
			after := stateInstance(t, raw)
			if after.SchemaVersion != 1 {
				t.Errorf("schema_version = %d, want 1", after.SchemaVersion)
			}
			status, _ := after.Attributes["status"].(map[string]any)
			if _, ok := status["conditions"]; ok || status["state"] != "Ready" {
				t.Errorf("status = %v, want state Ready and no conditions", status)
			}
			if v := after.Attributes["last_applied_settings"]; v != nil {
				t.Errorf("last_applied_settings = %v, want null (equal to effective_settings)", v)
			}
			if got, want := after.Attributes["effective_settings"], before.Attributes["effective_settings"]; !reflect.DeepEqual(got, want) {
				t.Errorf("effective_settings = %v, want %v as stored", got, want)
			}
			if got, want := after.Attributes["settings"], before.Attributes["settings"]; !reflect.DeepEqual(got, want) {
				t.Errorf("settings = %v, want %v as stored", got, want)
			}
			if res := c.run(nil, "plan", "-detailed-exitcode"); res.Code != 0 || !outputHas(res, "No changes.") {
				t.Fatalf("plan after the upgrade: exit %d, want 0 (no changes):\n%s", res.Code, res.Output())
			}
		})
	}
}

// storedInstance is a resource instance of a state file.
type storedInstance struct {
	Attributes    map[string]any `json:"attributes"`
	SchemaVersion int            `json:"schema_version"`
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
