package provider

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// verdictConfig configures Application "app" at v1.0.0 with the given
// settings and extra arguments, plan_checks = "required" (a rule not run
// would fail the plan).
func verdictConfig(e *appEnv, settings, extra string) string {
	return fmt.Sprintf("provider \"deckhouse\" {\n  config_path = %q\n  plan_checks = \"required\"\n}\n", e.cp.KubeconfigPath()) +
		fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name                    = "app"
  namespace               = %q
  package_name            = %q
  package_version         = "v1.0.0"
  package_repository_name = %q
  settings                = %s
%s}
`, e.namespace, e.pkg, e.repository, settings, extra)
}

// DP's webhook runs the rules that reference oldSelf only while
// status.currentVersion exists and equals spec.packageVersion. After an
// install DP refused (nothing installed), lowering a value a "can only
// grow" rule guards passes the plan and the apply; once a version is
// installed, the rule runs again. Through OpenTofu and Terraform.
func TestAccDPVerdict_OldSelfRulesWaitForAnInstalledVersion(t *testing.T) {
	t.Parallel()
	for name, bin := range clis(t) {
		t.Run(name, func(t *testing.T) {
			e := newAccEnv(t, withCLI(bin), withPackageSuffix("-ivc"),
				withPackageVersion(localdp.PackageVersionSeed{Version: "v1.0.0", Dir: testPackage(t, "dpverdict")}))
			// An install DP refuses (an undeclared field), written without
			// waiting so that the state records it.
			e.cli.write(verdictConfig(e, `{ replicas = 5, undeclared = 1 }`, "  settings_checks = \"warning\"\n  wait = false\n"))
			e.cli.must("apply", "-auto-approve")
			obj, err := e.get("app")
			if err != nil {
				t.Fatal(err)
			}
			if v, found, _ := unstructured.NestedString(obj.Object, "status", "currentVersion", "version"); found {
				t.Fatalf("status.currentVersion.version = %q, want nothing installed", v)
			}

			e.cli.write(verdictConfig(e, `{ replicas = 2 }`, ""))
			res := e.cli.must("plan")
			if outputHas(res, "replicas can only grow") || outputHas(res, "not checked") {
				t.Fatalf("nothing installed: the oldSelf rule must be neither run nor listed:\n%s", res.Output())
			}
			e.cli.must("apply", "-auto-approve")
			obj, err = e.get("app")
			if err != nil {
				t.Fatal(err)
			}
			if v, _, _ := unstructured.NestedString(obj.Object, "status", "currentVersion", "version"); v != "v1.0.0" {
				t.Fatalf("status.currentVersion.version = %q, want v1.0.0", v)
			}

			e.cli.write(verdictConfig(e, `{ replicas = 1 }`, ""))
			if res := e.cli.run(nil, "plan"); res.Code == 0 || !outputHas(res, "replicas can only grow") {
				t.Fatalf("installed version kept: exit %d, want the oldSelf rule's message:\n%s", res.Code, res.Output())
			}
		})
	}
}

// A key set to null runs the rules of its field with self bound to null, as
// DP's code runs them: a comparison that does not admit null fails the plan
// with the rule's message. Through OpenTofu and Terraform.
func TestAccDPVerdict_RuleOnAnExplicitNullFailsThePlan(t *testing.T) {
	t.Parallel()
	for name, bin := range clis(t) {
		t.Run(name, func(t *testing.T) {
			e := newAccEnv(t, withCLI(bin), withPackageSuffix("-nul"),
				withPackageVersion(localdp.PackageVersionSeed{Version: "v1.0.0", Dir: testPackage(t, "nullrule")}))
			e.cli.write(verdictConfig(e, `{ tier = null }`, ""))
			res := e.cli.run(nil, "plan")
			if res.Code == 0 || !outputHas(res, "tier must be gold or silver") || !outputHas(res, "settings.tier") {
				t.Fatalf("tier = null: exit %d, want the rule's message at settings.tier:\n%s", res.Code, res.Output())
			}
			e.cli.write(verdictConfig(e, `{ tier = "gold" }`, ""))
			e.cli.must("apply", "-auto-approve")
		})
	}
}
