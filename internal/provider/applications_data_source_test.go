package provider

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

func TestAccApplicationsDataSource_NamespaceAndPackageFilter(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane (TF_ACC=1)")
	}
	t.Parallel()
	e := newAppEnv(t)
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
	item := func(name, pkg string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
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
