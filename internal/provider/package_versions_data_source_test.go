package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

func TestAccPackageVersions_SortedWithNewestPerRepository(t *testing.T) {
	e := newAccEnv(t) // publishes main/v1.0.0
	for _, s := range []localdp.PackageVersionSeed{
		{Repository: "main", Version: "v1.10.0"},
		{Repository: "main", Version: "v1.2.0"},
		{Repository: "main", Version: "v1.11.0-rc.1", NotLoaded: true},
		{Repository: "main", Version: "v2.0.0", Draft: true},
		{Repository: "edge", Version: "v1.10.0"},
		{Repository: "edge", Version: "v1.3.0"},
	} {
		s.Package, s.SettingsSchema = e.pkg, []byte(`{"type": "object"}`)
		if err := e.cp.SeedPackageVersion(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	cfg := e.providerBlock() + fmt.Sprintf(`
data "deckhouse_package_versions" "all" {
  package_name = %[1]q
}
data "deckhouse_package_versions" "main" {
  package_name = %[1]q
  repository   = "main"
}
data "deckhouse_package_versions" "none" {
  package_name = "%[1]s-missing"
}
output "all_versions" {
  value = [for v in data.deckhouse_package_versions.all.versions : "${v.repository}/${v.version}"]
}
output "main_versions" {
  value = [for v in data.deckhouse_package_versions.main.versions : v.version]
}
`, e.pkg)
	entry := func(repo, ver string, draft, ready bool) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"repository": knownvalue.StringExact(repo),
			"version":    knownvalue.StringExact(ver),
			"name":       knownvalue.StringExact(dpapi.PackageVersionName(repo, e.pkg, ver)),
			"draft":      knownvalue.Bool(draft),
			"ready":      knownvalue.Bool(ready),
		})
	}
	strs := func(ss ...string) knownvalue.Check {
		cs := make([]knownvalue.Check, len(ss))
		for i, s := range ss {
			cs[i] = knownvalue.StringExact(s)
		}
		return knownvalue.ListExact(cs)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("all_versions", strs(
					"main/v1.0.0", "main/v1.2.0", "edge/v1.3.0", "edge/v1.10.0", "main/v1.10.0", "main/v1.11.0-rc.1", "main/v2.0.0")),
				statecheck.ExpectKnownOutputValue("main_versions", strs("v1.0.0", "v1.2.0", "v1.10.0", "v1.11.0-rc.1", "v2.0.0")),
				// Equal versions in two repositories: the first repository by name.
				statecheck.ExpectKnownValue("data.deckhouse_package_versions.all", tfjsonpath.New("newest"), entry("edge", "v1.10.0", false, true)),
				// v2.0.0 is a draft and v1.11.0-rc.1 has no metadata: neither is the newest.
				statecheck.ExpectKnownValue("data.deckhouse_package_versions.main", tfjsonpath.New("newest"), entry("main", "v1.10.0", false, true)),
				statecheck.ExpectKnownValue("data.deckhouse_package_versions.main", tfjsonpath.New("versions").AtSliceIndex(4), entry("main", "v2.0.0", true, false)),
				statecheck.ExpectKnownValue("data.deckhouse_package_versions.main", tfjsonpath.New("versions").AtSliceIndex(3), entry("main", "v1.11.0-rc.1", false, false)),
				statecheck.ExpectKnownValue("data.deckhouse_package_versions.main", tfjsonpath.New("id"), knownvalue.StringExact("main/"+e.pkg)),
				statecheck.ExpectKnownValue("data.deckhouse_package_versions.none", tfjsonpath.New("versions"), knownvalue.ListExact(nil)),
				statecheck.ExpectKnownValue("data.deckhouse_package_versions.none", tfjsonpath.New("newest"), knownvalue.Null()),
			},
		}},
	})
}
