package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

func TestAccApplicationsDataSource_NamespaceAndPackageFilter(t *testing.T) {
	e := newAccEnv(t)
	other := e.pkg + "-b"
	if err := e.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{
		Repository: e.repository, Package: other, Version: "v1.0.0", SettingsSchema: []byte(`{"type": "object"}`),
	}); err != nil {
		t.Fatal(err)
	}
	e.seedApplication("web", e.pkg, nil)
	e.seedApplication("api", e.pkg, map[string]any{"replicas": int64(2)})
	e.seedApplication("cache", other, nil)

	cfg := e.providerBlock() + fmt.Sprintf(`
data "deckhouse_applications" "all" {
  namespace = %[1]q
}
data "deckhouse_applications" "demo" {
  namespace    = %[1]q
  package_name = %[2]q
}
data "deckhouse_applications" "none" {
  namespace    = %[1]q
  package_name = "absent"
}
output "all_names" {
  value = [for a in data.deckhouse_applications.all.items : a.name]
}
`, e.namespace, e.pkg)
	// The data source shows update and resource_requests as in the cluster,
	// the CRD's default severity included.
	if _, err := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace).Patch(context.Background(), "web", k8stypes.MergePatchType,
		[]byte(`{"spec":{"update":{"mode":"Manual","blockOnAlerts":{"enabled":true}},"resourceRequests":[{"kind":"Deployment","name":"web","replicas":2}]}}`),
		metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	item := func(name, pkg string) knownvalue.Check {
		var update, requests knownvalue.Check = knownvalue.Null(), knownvalue.Null()
		if name == "web" {
			update = knownvalue.ObjectExact(map[string]knownvalue.Check{
				"mode": knownvalue.StringExact("Manual"), "windows": knownvalue.Null(),
				"block_on_alerts": knownvalue.ObjectExact(map[string]knownvalue.Check{
					"enabled": knownvalue.Bool(true), "severity": knownvalue.Int64Exact(4)}),
			})
			requests = knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
				"kind": knownvalue.StringExact("Deployment"), "name": knownvalue.StringExact("web"),
				"replicas": knownvalue.Int64Exact(2), "containers": knownvalue.Null(),
			})})
		}
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"update":                  update,
			"resource_requests":       requests,
			"namespace":               knownvalue.StringExact(e.namespace),
			"name":                    knownvalue.StringExact(name),
			"package_name":            knownvalue.StringExact(pkg),
			"package_version":         knownvalue.StringExact("v1.0.0"),
			"package_repository_name": knownvalue.StringExact("main"),
			"state":                   knownvalue.StringExact("Ready"),
			"configuration_applied":   knownvalue.StringExact("True"),
			"ready":                   knownvalue.StringExact("True"),
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("all_names", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("api"), knownvalue.StringExact("cache"), knownvalue.StringExact("web"),
				})),
				statecheck.ExpectKnownValue("data.deckhouse_applications.all", tfjsonpath.New("id"), knownvalue.StringExact(e.namespace)),
				statecheck.ExpectKnownValue("data.deckhouse_applications.demo", tfjsonpath.New("items"), knownvalue.ListExact([]knownvalue.Check{
					item("api", e.pkg), item("web", e.pkg),
				})),
				statecheck.ExpectKnownValue("data.deckhouse_applications.demo", tfjsonpath.New("id"), knownvalue.StringExact(e.namespace+"/"+e.pkg)),
				statecheck.ExpectKnownValue("data.deckhouse_applications.none", tfjsonpath.New("items"), knownvalue.ListExact(nil)),
			},
		}},
	})
}
