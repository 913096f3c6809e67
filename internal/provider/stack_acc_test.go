package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// stackConfig is the configuration of the guide "Clusters and applications
// in one configuration": a resource that creates the cluster (terraform_data
// stands in for it: its output, the kubeconfig, is unknown at plan whenever
// it is replaced), the provider configured from its output, a data source
// and an Application. dependsOn adds depends_on to the data source.
//
// With dependsOn, the ephemeral deckhouse_application is there too, its
// namespace referring to the cluster's output (depends_on does not keep
// Terraform from opening an ephemeral resource at plan; OpenTofu it does).
func (e *appEnv) stackConfig(dependsOn bool, replicas int) string {
	depends, eph := "", ""
	if dependsOn {
		depends = "\n  depends_on = [terraform_data.cluster]"
		eph = fmt.Sprintf(`
ephemeral "deckhouse_application" "app" {
  namespace  = terraform_data.cluster.output.kubeconfig == "" ? "" : %q
  name       = "app"
  depends_on = [deckhouse_application.app]
}
`, e.namespace)
	}
	return fmt.Sprintf(`
variable "cluster_revision" {
  type    = number
  default = 1
}

resource "terraform_data" "cluster" {
  input = { kubeconfig = %q, revision = var.cluster_revision }
}

provider "deckhouse" {
  config_path = terraform_data.cluster.output.kubeconfig
}

data "deckhouse_package_versions" "app" {
  package_name = %q%s
}

resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = %q
  package_name    = %q
  package_version = "v1.0.0"
  settings        = { replicas = %d }
}

output "versions" {
  value = [for v in data.deckhouse_package_versions.app.versions : v.version]
}

output "replicas" {
  value = provider::deckhouse::setting(deckhouse_application.app.effective_settings, "replicas")
}
%s`, e.cp.KubeconfigPath(), e.pkg, depends, e.namespace, e.pkg, replicas, eph)
}

// The stack of the guide runs on every CLI. First run: a data source
// without depends_on fails the plan naming depends_on; with it (and the
// ephemeral resource's namespace referring to the cluster), one apply
// creates the cluster (terraform_data), reads the data source, creates the
// Application and opens the ephemeral resource. Day two: the cluster's resource is replaced, so the
// provider configuration is unknown again: the refresh of the Application
// keeps its state with a warning, the plan goes on, and the apply updates
// the Application with the known configuration; the next plan is empty.
func TestAccStack_ClusterProviderDataSourceAndApplicationFirstRunAndDayTwo(t *testing.T) {
	for name, path := range clis(t) {
		t.Run(name, func(t *testing.T) {
			e := newAccEnv(t, withCLI(path))
			c := e.cli

			c.write(e.stackConfig(false, 2))
			res := c.run(nil, "plan", "-no-color")
			if res.Code == 0 || !outputHas(res, "Provider configuration unknown at plan") || !outputHas(res, "depends_on") {
				t.Fatalf("plan of a data source without depends_on: exit %d, want the error naming depends_on:\n%s", res.Code, res.Output())
			}

			c.write(e.stackConfig(true, 2))
			res = c.must("apply", "-auto-approve", "-no-color")
			if !outputHas(res, "Settings not checked at plan: provider configuration unknown") || !outputHas(res, `"v1.0.0"`) {
				t.Fatalf("first apply: want the warning of unchecked settings and the versions output:\n%s", res.Output())
			}
			first := e.mustGet(t, "app")
			if n, _, _ := unstructured.NestedInt64(first.Object, "spec", "settings", "replicas"); n != 2 {
				t.Fatalf("first apply: replicas %d, want 2", n)
			}

			c.write(e.stackConfig(true, 3))
			res = c.must("plan", "-no-color", "-var", "cluster_revision=2")
			if !outputHas(res, "Application not refreshed: provider configuration unknown") {
				t.Fatalf("day-two plan: want the refresh's warning:\n%s", res.Output())
			}
			c.must("apply", "-auto-approve", "-no-color", "-var", "cluster_revision=2")
			second := e.mustGet(t, "app")
			if n, _, _ := unstructured.NestedInt64(second.Object, "spec", "settings", "replicas"); n != 3 || second.GetUID() != first.GetUID() {
				t.Fatalf("day-two apply: replicas %d, UID %s (first %s), want 3 on the same Application", n, second.GetUID(), first.GetUID())
			}
			res = c.run(nil, "plan", "-no-color", "-detailed-exitcode", "-var", "cluster_revision=2")
			if res.Code != 0 {
				t.Fatalf("plan after day two: exit %d, want no changes:\n%s", res.Code, res.Output())
			}
		})
	}
}

func (e *appEnv) mustGet(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := e.get(name)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// terraformExperimentalPath is a Terraform built with experiments allowed,
// the only kind that takes -allow-deferral: DECKHOUSE_TEST_TERRAFORM_EXPERIMENTAL,
// else the toolchain's terraform-experimental (tools/bootstrap.sh
// terraform-experimental); "" when neither is there.
func terraformExperimentalPath() string {
	p := os.Getenv("DECKHOUSE_TEST_TERRAFORM_EXPERIMENTAL")
	if p == "" && os.Getenv("DECKHOUSE_TOOLS_BIN") != "" {
		p = filepath.Join(os.Getenv("DECKHOUSE_TOOLS_BIN"), "terraform-experimental")
	}
	if fi, err := os.Stat(p); p == "" || err != nil || fi.IsDir() {
		return ""
	}
	return p
}

// Through a Terraform that allows deferral (-allow-deferral), the stack's
// first plan defers the Application and the data source, both for the
// reason "provider configuration unknown", and applies the cluster alone;
// the next run, with the configuration known, creates the Application and
// defers nothing.
//
// This test does not run in parallel: terraform-plugin-testing reads the
// CLI's path from TF_ACC_TERRAFORM_PATH, an environment variable of the
// whole process, which t.Setenv may change only in a test that does not
// run in parallel (the parallel tests wait until it ends).
func TestAccDeferral_ExperimentalTerraformDefersUnderAnUnknownProviderConfiguration(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane and the CLIs (TF_ACC=1)")
	}
	tf := terraformExperimentalPath()
	if tf == "" {
		t.Skip("no Terraform built with experiments allowed: tools/bootstrap.sh terraform-experimental builds one, or set DECKHOUSE_TEST_TERRAFORM_EXPERIMENTAL")
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", tf)
	e := newAppEnv(t)
	config := e.stackConfig(false, 2)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		AdditionalCLIOptions: &resource.AdditionalCLIOptions{
			Plan:  resource.PlanOptions{AllowDeferral: true},
			Apply: resource.ApplyOptions{AllowDeferral: true},
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectDeferredChange("deckhouse_application.app", plancheck.DeferredReasonProviderConfigUnknown),
						plancheck.ExpectDeferredChange("data.deckhouse_package_versions.app", plancheck.DeferredReasonProviderConfigUnknown),
						plancheck.ExpectResourceAction("terraform_data.cluster", plancheck.ResourceActionCreate),
					},
				},
				// The plan after the apply creates the Application: the
				// configuration is known now.
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectNoDeferredChanges(),
						plancheck.ExpectResourceAction("deckhouse_application.app", plancheck.ResourceActionCreate),
					},
				},
			},
		},
		CheckDestroy: e.checkDestroyed,
	})
}
