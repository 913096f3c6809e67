package provider

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// dpVerdictEnv is a namespace of the local control plane with the
// dpverdict package published, and an OpenTofu working folder.
type dpVerdictEnv struct {
	*appEnv
}

func newDPVerdictEnv(t *testing.T) *dpVerdictEnv {
	t.Helper()
	e := newAccEnv(t, withCLI(""), withPackageSuffix("-dpv"),
		withPackageVersion(localdp.PackageVersionSeed{Version: "v1.0.0", Dir: testPackage(t, "dpverdict")}))
	return &dpVerdictEnv{appEnv: e}
}

// write configures one Application "app" with the given settings body.
func (e *dpVerdictEnv) write(settings string) {
	e.cli.write(e.config(fmt.Sprintf("  package_repository_name = %q\n  settings = %s", e.repository, settings)))
}

// An object marked x-deckhouse-immutable is compared whole, as DP's webhook
// does: a key added under it fails the plan, naming the object.
func TestAccDPVerdict_KeyAddedUnderFrozenObjectFailsThePlan(t *testing.T) {
	e := newDPVerdictEnv(t)
	e.write(`{ postgres = { size = "small" } }`)
	e.cli.must("apply", "-auto-approve")
	e.write(`{ postgres = { size = "small", volumeSize = "10Gi" } }`)
	res := e.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, `field "postgres" is immutable: it can only be set when the application is created`) {
		t.Fatalf("plan adding a key under a frozen object: exit %d, want an error naming postgres:\n%s", res.Code, res.Output())
	}
}

// oldSelf is the previous settings as written: a rule over a defaulted
// field the user never wrote passes, as in DP, at plan and at apply.
func TestAccDPVerdict_OldSelfRuleOverDefaultedFieldPassesAsInDP(t *testing.T) {
	e := newDPVerdictEnv(t)
	e.write(`{}`)
	e.cli.must("apply", "-auto-approve")
	e.write(`{ replicas = 2 }`)
	e.cli.must("apply", "-auto-approve")
	// Now replicas was written: shrinking it is rejected at plan.
	e.write(`{ replicas = 1 }`)
	res := e.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "replicas can only grow") {
		t.Fatalf("plan shrinking a written value: exit %d, want the rule's message:\n%s", res.Code, res.Output())
	}
}

// A package DP never publishes (a wrongly typed x-deckhouse value) is
// refused offline with the reason.
func TestAccDPVerdict_UnpublishablePackageRefusedOffline(t *testing.T) {
	t.Parallel()
	cli := newTofuCLI(t, false)
	cli.write(emptyProvider + settingsDS("s", testPackage(t, "unpublishable"), `  settings = {}`))
	res := cli.run(nil, "plan")
	for _, want := range []string{"openapi/settings.yaml at /properties/storageClass/x-deckhouse-immutable", "DP will not publish this package version"} {
		if res.Code == 0 || !outputHas(res, want) {
			t.Fatalf("plan with an unpublishable package: exit %d, want %q:\n%s", res.Code, want, res.Output())
		}
	}
}

// A destroy deletes the Application; DP then deletes the package's orphan
// resources labelled with the instance (simulated by the local control
// plane), and keeps one whose resource policy is keep.
func TestAccDPVerdict_DestroyRemovesLabelledOrphanKeepsKept(t *testing.T) {
	e := newDPVerdictEnv(t)
	e.write(`{}`)
	e.cli.must("apply", "-auto-approve")
	ctx := context.Background()
	cms := e.cp.Dynamic().Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(e.namespace)
	for name, policy := range map[string]string{"orphan": "", "kept": "keep"} {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
		cm.SetName(name)
		cm.SetLabels(map[string]string{localdp.LabelInstance: "app"})
		if policy != "" {
			cm.SetAnnotations(map[string]string{localdp.AnnotationHelmResourcePolicy: policy})
		}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.cli.must("destroy", "-auto-approve")
	if _, err := cms.Get(ctx, "orphan", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("labelled orphan after destroy: err %v, want not found", err)
	}
	if _, err := cms.Get(ctx, "kept", metav1.GetOptions{}); err != nil {
		t.Errorf("orphan marked keep after destroy: %v, want it kept", err)
	}
}

// A project catalog without a default checks nothing (the specification),
// but a value outside its available names gets a warning, since DP's code
// rejects it.
func TestAccDPVerdict_CatalogWithoutDefaultWarnsOutsideAvailable(t *testing.T) {
	t.Parallel()
	cli := newTofuCLI(t, false)
	cli.write(emptyProvider + settingsDS("s", testPackage(t, "app"), `  settings = { storageClass = "gold" }
  project_resources = { storageclasses = { available = ["fast"] } }`))
	res := cli.must("plan")
	if !outputHas(res, "Warning: DP may reject this value") || !outputHas(res, `the project names no default for this resource`) {
		t.Fatalf("plan lacks the warning:\n%s", res.Output())
	}
	if outputHas(res, "gold") {
		t.Fatalf("the warning prints the value:\n%s", res.Output())
	}
}

// A schema a cluster serves that DP's typed decode refuses (here written
// into the ApplicationPackageVersion directly) is named at plan with the
// reason, and plan_checks = "required" makes it an error.
func TestAccDPVerdict_ServedUnpublishableSchemaNamedAtPlan(t *testing.T) {
	e := newAccEnv(t, withCLI(""), withPackageSuffix("-bad"), withPackageVersion(localdp.PackageVersionSeed{Version: "v1.0.0",
		SettingsSchema: []byte(`{"type": "object", "properties": {"size": {"type": "string", "x-deckhouse-immutable": "true"}}}`)}))
	cli := e.cli
	cli.write(fmt.Sprintf("provider \"deckhouse\" {\n  config_path = %q\n  plan_checks = \"required\"\n}\n", e.cp.KubeconfigPath()) +
		fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name                    = "app"
  namespace               = %q
  package_name            = %q
  package_version         = "v1.0.0"
  package_repository_name = %q
  settings                = { size = "1Gi" }
}
`, e.namespace, e.pkg, e.repository))
	res := cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "DP will not publish this package version") || !outputHas(res, "/properties/size/x-deckhouse-immutable") {
		t.Fatalf("plan against an unpublishable served schema: exit %d:\n%s", res.Code, res.Output())
	}
}
