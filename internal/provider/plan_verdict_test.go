package provider

import (
	"encoding/json"
	"testing"
)

// unknownHost is a value known only at apply: terraform_data's output on
// its first apply.
const unknownHost = `
resource "terraform_data" "host" {
  input = "demo.example.com"
}
`

// An unknown leaf does not switch the checks off: an undeclared sibling
// still fails the plan at its own path.
func TestAccPlanVerdict_UnknownLeafStillChecksItsSiblings(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.write(f.provider("") + unknownHost + f.app("test", "app", `  settings = {
    domain   = terraform_data.host.output
    replicas = 2
    replica  = 3
  }`))
	res := f.cli.run(nil, "plan")
	if res.Code == 0 {
		t.Fatalf("plan with an undeclared field beside an unknown value passed:\n%s", res.Output())
	}
	for _, want := range []string{"Invalid settings.replica: field not declared in the package schema", `Did you mean "replicas"`} {
		if !outputHas(res, want) {
			t.Errorf("plan output lacks %q:\n%s", want, res.Output())
		}
	}
}

// With only the unknown value, the plan passes with a warning that names
// the checks it could not run; effective_settings, one JSON string, is
// unknown as a whole (known after apply).
func TestAccPlanVerdict_UnknownLeafWarnsAndNamesTheSkippedChecks(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.write(f.provider("") + unknownHost + f.app("test", "app", `  settings = {
    domain   = terraform_data.host.output
    replicas = 2
  }`))
	res := f.cli.must("plan", "-out=p.tfplan")
	for _, want := range []string{"Not checked at plan: settings.domain is known only at apply", "pattern"} {
		if !outputHas(res, want) {
			t.Errorf("plan output lacks %q:\n%s", want, res.Output())
		}
	}
	show := f.cli.must("show", "-json", "p.tfplan").Stdout
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				After        map[string]any `json:"after"`
				AfterUnknown map[string]any `json:"after_unknown"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(show), &plan); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, rc := range plan.ResourceChanges {
		if rc.Address != "deckhouse_application.test" {
			continue
		}
		found = true
		if v, ok := rc.Change.After["effective_settings"]; ok || rc.Change.AfterUnknown["effective_settings"] != true {
			t.Errorf("planned effective_settings = %v (after_unknown %v), want unknown as a whole:\n%s", v, rc.Change.AfterUnknown["effective_settings"], show)
		}
	}
	if !found {
		t.Fatalf("the plan has no change of deckhouse_application.test:\n%s", show)
	}
	f.cli.must("apply", "p.tfplan")
	f.cli.planClean()
}

// plan_checks = "required" turns the unknown-value warning into an error.
func TestAccPlanVerdict_StrictModeRefusesUnknownValues(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.write(f.provider(`  plan_checks = "required"`) + unknownHost + f.app("test", "app", `  settings = {
    domain = terraform_data.host.output
  }`))
	res := f.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "Error: Not checked at plan: settings.domain is known only at apply") {
		t.Fatalf("strict plan with an unknown value: exit %d, want an error:\n%s", res.Code, res.Output())
	}
}

// A cluster that cannot be reached at plan: a warning by default (the
// checks run at apply), an error under plan_checks = "required", also set
// through DECKHOUSE_PLAN_CHECKS; the message says the cluster is
// unavailable, not misconfigured.
func TestAccPlanVerdict_UnreachableClusterWarnsOrFails(t *testing.T) {
	f := newFaultEnv(t)
	f.proxy.StopUpstream()
	f.cli.write(f.provider(`  request_timeout = "5s"`) + f.app("test", "app", "  settings = { replicas = 2 }"))
	res := f.cli.run(nil, "plan")
	if res.Code != 0 || !outputHas(res, "Warning: Cannot resolve package_repository_name (cluster unavailable)") {
		t.Fatalf("default plan against an unreachable cluster: exit %d, want a warning:\n%s", res.Code, res.Output())
	}
	res = f.cli.run([]string{"DECKHOUSE_PLAN_CHECKS=required"}, "plan")
	if res.Code == 0 || !outputHas(res, "Error: Settings not checked at plan: Cannot resolve package_repository_name (cluster unavailable)") {
		t.Fatalf("strict plan against an unreachable cluster: exit %d, want an error:\n%s", res.Code, res.Output())
	}
	f.proxy.StartUpstream()
}

// No cluster configured at all is a misconfiguration, said as such.
func TestAccPlanVerdict_NoClusterIsAMisconfiguration(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.env = append(f.cli.env, "KUBE_CONFIG_PATH=", "KUBE_CONFIG_PATHS=", "KUBE_HOST=", "KUBERNETES_SERVICE_HOST=")
	f.cli.write("provider \"deckhouse\" {\n  plan_checks = \"required\"\n}\n" + f.app("test", "app", "  settings = { replicas = 2 }"))
	res := f.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "no cluster configured") {
		t.Fatalf("strict plan with no cluster: exit %d, want an error naming the misconfiguration:\n%s", res.Code, res.Output())
	}
}
