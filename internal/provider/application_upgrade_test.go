package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// upgradeConfig configures Application "app" of the dpverdict package at
// version with the given settings, plan_checks = "required" (a rule not
// run would fail the plan).
func upgradeConfig(e *dpVerdictEnv, version, settings string) string {
	return fmt.Sprintf("provider \"deckhouse\" {\n  config_path = %q\n  plan_checks = \"required\"\n}\n", e.cp.KubeconfigPath()) +
		fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name                    = "app"
  namespace               = %q
  package_name            = %q
  package_version         = %q
  package_repository_name = %q
  settings                = %s
}
`, e.namespace, e.pkg, version, e.repository, settings)
}

// An upgrade is checked as DP checks it: the same settings change that an
// oldSelf rule refuses while the installed version stays ("replicas can
// only grow") passes the plan, in strict mode, and the apply when it comes
// with a new package version (DP skips oldSelf rules on a version change);
// the new version's other checks (here: its schema) still run.
func TestAccApplicationUpgrade_OldSelfRulesSkippedWhenTheVersionChanges(t *testing.T) {
	e := newDPVerdictEnv(t)
	if err := e.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{
		Repository: e.repository, Package: e.pkg, Version: "v1.1.0", Dir: testPackage(t, "dpverdict"),
	}); err != nil {
		t.Fatal(err)
	}
	e.cli.write(upgradeConfig(e, "v1.0.0", `{ replicas = 5 }`))
	e.cli.must("apply", "-auto-approve")

	e.cli.write(upgradeConfig(e, "v1.0.0", `{ replicas = 2 }`))
	res := e.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "replicas can only grow") {
		t.Fatalf("same version: exit %d, want the oldSelf rule's message:\n%s", res.Code, res.Output())
	}

	e.cli.write(upgradeConfig(e, "v1.1.0", `{ replicas = 0 }`))
	res = e.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "settings.replicas") || outputHas(res, "replicas can only grow") {
		t.Fatalf("version change with a value the schema refuses: exit %d, want the schema's error and no oldSelf rule:\n%s", res.Code, res.Output())
	}

	e.cli.write(upgradeConfig(e, "v1.1.0", `{ replicas = 2 }`))
	res = e.cli.must("plan")
	if outputHas(res, "replicas can only grow") || outputHas(res, "not checked") {
		t.Fatalf("version change: the oldSelf rule must be neither run nor listed:\n%s", res.Output())
	}
	e.cli.must("apply", "-auto-approve")
	obj, err := e.get("app")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(obj.Object, "status", "currentVersion", "version"); v != "v1.1.0" {
		t.Fatalf("status.currentVersion.version = %q, want v1.1.0", v)
	}
	e.cli.planClean()

	// On the new version, the rule runs again.
	e.cli.write(upgradeConfig(e, "v1.1.0", `{ replicas = 1 }`))
	if res := e.cli.run(nil, "plan"); res.Code == 0 || !outputHas(res, "replicas can only grow") {
		t.Fatalf("same version after the upgrade: exit %d, want the oldSelf rule's message:\n%s", res.Code, res.Output())
	}
}

// The plan shows the project default a grant supplies in
// effective_settings; when that default changes between plan and apply,
// the apply of the saved plan fails naming effective_settings (the CLI's
// check, see the compatibility page; the attribute is one JSON string, so the
// CLI names it whole and shows the planned and the new document, storageClass
// "fast" and then "slow") and writes nothing. Through OpenTofu and Terraform.
func TestAccApplication_PlanShowsTheProjectDefault(t *testing.T) {
	t.Parallel()
	// The CLI's "Provider produced inconsistent final plan", whitespace
	// folded: .effective_settings: was cty.StringVal("<document>"), but now
	// cty.StringVal("<document>"), the documents' quotes escaped.
	inconsistentEffectiveSettings := regexp.MustCompile(`\.effective_settings: was cty\.StringVal\("[^ ]*\\"storageClass\\":\\"fast\\"[^ ]*"\), but now cty\.StringVal\("[^ ]*\\"storageClass\\":\\"slow\\"[^ ]*"\)`)
	for name, bin := range clis(t) {
		t.Run(name, func(t *testing.T) {
			e := newAccEnv(t, withCLI(bin))
			cli := e.cli
			cli.write(e.config(`  settings = { replicas = 2 }`))
			res := cli.must("plan", "-out", "tfplan")
			if !outputHas(res, `storageClass = "fast"`) {
				t.Fatalf("the plan does not show the project default storageClass = \"fast\":\n%s", res.Output())
			}
			if err := e.cp.SeedAvailableClusterResource(context.Background(), e.namespace, "storageclasses", "slow", []string{"fast", "slow"}); err != nil {
				t.Fatal(err)
			}
			res = cli.run(nil, "apply", "tfplan")
			if res.Code == 0 || !inconsistentEffectiveSettings.MatchString(strings.Join(strings.Fields(res.Output()), " ")) {
				t.Fatalf("apply of a plan whose project default changed: exit %d, want an error naming effective_settings, planned with storageClass \"fast\", now \"slow\":\n%s", res.Code, res.Output())
			}
			if _, err := e.get("app"); !apierrors.IsNotFound(err) {
				t.Fatalf("the Application was written (err %v), want nothing written", err)
			}
			res = cli.must("apply", "-auto-approve")
			if !outputHas(res, `storageClass = "slow"`) {
				t.Fatalf("the new plan does not show the new project default:\n%s", res.Output())
			}
		})
	}
}

// After an import the state holds no settings and no record of what DP
// applied: the plan reads the installed version from the cluster's
// status.currentVersion, so an upgrade still skips the oldSelf rules, and
// an update on the installed version still runs them.
func TestAccApplicationUpgrade_AfterImportTheClusterSaysWhichVersionIsInstalled(t *testing.T) {
	e := newDPVerdictEnv(t)
	if err := e.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{
		Repository: e.repository, Package: e.pkg, Version: "v1.1.0", Dir: testPackage(t, "dpverdict"),
	}); err != nil {
		t.Fatal(err)
	}
	e.cli.write(upgradeConfig(e, "v1.0.0", `{ replicas = 5 }`))
	e.cli.must("apply", "-auto-approve")
	e.cli.must("state", "rm", appAddr)
	e.cli.must("import", appAddr, e.namespace+"/app")

	e.cli.write(upgradeConfig(e, "v1.0.0", `{ replicas = 2 }`))
	if res := e.cli.run(nil, "plan"); res.Code == 0 || !outputHas(res, "replicas can only grow") {
		t.Fatalf("same version after an import: exit %d, want the oldSelf rule's message:\n%s", res.Code, res.Output())
	}
	e.cli.write(upgradeConfig(e, "v1.1.0", `{ replicas = 2 }`))
	if res := e.cli.must("plan"); outputHas(res, "replicas can only grow") {
		t.Fatalf("version change after an import: the oldSelf rule ran:\n%s", res.Output())
	}
}
