package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// eachCLI runs scenario once per CLI (OpenTofu from the tool cache and
// Terraform when present: clis), each in an environment of its own.
func eachCLI(t *testing.T, scenario func(t *testing.T, cli string)) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane and the CLIs (TF_ACC=1)")
	}
	t.Parallel()
	for name, path := range clis(t) {
		t.Run(name, func(t *testing.T) { scenario(t, path) })
	}
}

// waitAppliedGeneration waits until DP has applied the current generation
// of the Application name.
func (e *appEnv) waitAppliedGeneration(name string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, err := e.get(name)
		if err != nil {
			e.t.Fatal(err)
		}
		c := meta.FindStatusCondition(dpclient.Conditions(cur), dpclient.ConditionConfigurationApplied)
		if c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == cur.GetGeneration() {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("Application %s/%s: generation %d not applied within 30s: %v", e.namespace, name, cur.GetGeneration(), cur.Object["status"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A secret sensitive_settings stops writing (removed with a new
// sensitive_settings_version) while DP's record is still of the generation
// that holds it (DP rejected the new one) stays out of the state: neither
// the apply that recorded the rejected write nor the refreshes after it
// store it in last_applied_settings or status, nor print it.
func TestAccSecrets_RemovedSecretStaysOutWhileDPsRecordHoldsIt(t *testing.T) {
	eachCLI(t, func(t *testing.T, cli string) {
		marker := "GEN-SECRET-" + randomHex(t, 8)
		e := newAccEnv(t, withCLI(cli, "TF_VAR_secret="+marker))
		c := e.cli
		cfg := func(settings, extra, sensitive, version string) string {
			return "variable \"secret\" {\n  type      = string\n  ephemeral = true\n}\n\n" + e.config(fmt.Sprintf(
				"  settings = %s\n%s  sensitive_settings = %s\n  sensitive_settings_version = %q\n", settings, extra, sensitive, version))
		}
		c.write(cfg("{ replicas = 1 }", "", "{ auth = { user = var.secret } }", "1"))
		c.must("apply", "-auto-approve")
		e.waitAppliedGeneration("app")

		// DP rejects the next generation (a field its schema does not
		// declare, let through by settings_checks = "warning").
		c.write(cfg("{ replicas = 1, debug = true }", "  settings_checks = \"warning\"\n", "null", "2"))
		res := c.run(nil, "apply", "-auto-approve")
		if res.Code == 0 || !outputHas(res, "DP rejected the settings") {
			t.Fatalf("apply of a generation DP rejects: exit %d, want DP's rejection:\n%s", res.Code, res.Output())
		}
		outputs := []tofuResult{res, c.run(nil, "plan"), c.must("apply", "-refresh-only", "-auto-approve"), c.must("show", "-json")}
		for i, r := range outputs {
			if strings.Contains(r.Output(), marker) {
				t.Fatalf("run %d prints the removed secret:\n%s", i, r.Output())
			}
		}
		if state := c.file("terraform.tfstate"); !strings.Contains(state, "last_applied_settings") || strings.Contains(state, marker) {
			t.Fatalf("the state holds the removed secret, or no last_applied_settings:\n%s", state)
		}
	})
}

// A destroy that times out quotes DP's last status without another field
// manager's value (a password kubectl edit wrote), as the refresh leaves it
// out of status.
func TestAccDPTexts_DestroyTimeoutCarriesNoOtherManagersValue(t *testing.T) {
	eachCLI(t, func(t *testing.T, cli string) {
		e := newAccEnv(t, withCLI(cli))
		secret := "FOREIGN-" + randomHex(t, 8)
		e.cli.write(e.config("  settings = { replicas = 1 }\n  timeouts {\n    delete = \"3s\"\n  }"))
		e.cli.must("apply", "-auto-approve")
		e.editAs("kubectl-edit", "app", map[string]any{"auth": map[string]any{"password": secret}})
		e.waitAppliedGeneration("app")
		e.setSummaryMessage("app", "admin password "+secret+" still in use")
		client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
		hold := []byte(`{"metadata":{"finalizers":["packages.deckhouse.io/application","test.deckhouse.io/hold"]}}`)
		if _, err := client.Patch(context.Background(), "app", k8stypes.MergePatchType, hold, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			release := []byte(`{"metadata":{"finalizers":null}}`)
			_, _ = client.Patch(context.Background(), "app", k8stypes.MergePatchType, release, metav1.PatchOptions{})
		})
		res := e.cli.run(nil, "destroy", "-auto-approve")
		if res.Code == 0 || !outputHas(res, "Last status") {
			t.Fatalf("destroy with a finalizer held: exit %d, want a timeout quoting DP's status:\n%s", res.Code, res.Output())
		}
		if strings.Contains(res.Output(), secret) {
			t.Fatalf("the destroy's error holds another manager's value:\n%s", res.Output())
		}
	})
}

// The shipped module examples/modules/demo-app with an input known only at
// apply (terraform_data's output): settings are unknown as a whole at plan,
// effective_settings is known after apply, and the apply succeeds (no
// inconsistent final plan); the next plan is empty.
func TestAccDemoAppModule_InputKnownOnlyAtApplyPlansAndApplies(t *testing.T) {
	eachCLI(t, func(t *testing.T, cli string) {
		e := newAccEnv(t, withCLI(cli))
		c := e.cli
		src := filepath.Join("..", "..", "examples", "modules", "demo-app")
		dst := filepath.Join(c.dir, "demo-app")
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"main.tf", "variables.tf", "outputs.tf", "versions.tf"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			// The module's package is the environment's.
			text := strings.Replace(string(b), `package_name            = "demo-app"`, fmt.Sprintf("package_name            = %q", e.pkg), 1)
			if f == "main.tf" && text == string(b) {
				t.Fatal("the module's package_name line was not found")
			}
			if err := os.WriteFile(filepath.Join(dst, f), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c.write(e.providerBlock() + fmt.Sprintf(`
resource "terraform_data" "replicas" {
  input = 2
}

module "app" {
  source             = "./demo-app"
  namespace          = %q
  package_version    = "v1.0.0"
  package_repository = %q
  domain             = "app.example.com"
  replicas           = terraform_data.replicas.output
}
`, e.namespace, e.repository))
		c.must("get")
		plan := c.must("plan")
		if !outputHas(plan, "effective_settings") || !outputHas(plan, "(known after apply)") {
			t.Fatalf("plan: want effective_settings known after apply:\n%s", plan.Output())
		}
		c.must("apply", "-auto-approve")
		obj, err := e.get("demo")
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "settings", "replicas"); got != 2 {
			t.Fatalf("spec.settings.replicas = %d, want 2", got)
		}
		c.planClean()
	})
}

// With settings_checks = "warning", a served schema DP's runtime refuses is
// a warning at plan and the apply does not refuse it for the same reason:
// it writes the Application and DP decides.
func TestAccSettingsChecks_WarningLeavesAServedSchemaToDP(t *testing.T) {
	eachCLI(t, func(t *testing.T, cli string) {
		schema := `{"type": "object", "properties": {"storageClass": {"type": "string", "x-deckhouse-grantable-resource": ""}}}`
		e := newAccEnv(t, withCLI(cli), withPackageSuffix("-servedw"),
			withPackageVersion(localdp.PackageVersionSeed{Version: "v1.0.0", SettingsSchema: []byte(schema)}))
		e.cli.write(e.config(fmt.Sprintf("  package_repository_name = %q\n  settings = {}\n  settings_checks = \"warning\"\n  wait = false", e.repository)))
		plan := e.cli.must("plan")
		if !outputHas(plan, "cannot be installed") || !outputHas(plan, "DP decides") {
			t.Fatalf("plan: want the warning that DP decides:\n%s", plan.Output())
		}
		res := e.cli.run(nil, "apply", "-auto-approve")
		if res.Code != 0 {
			t.Fatalf("apply refused what the plan let through: exit %d:\n%s", res.Code, res.Output())
		}
		if _, err := e.get("app"); err != nil {
			t.Fatalf("the Application was not written: %v", err)
		}
	})
}
