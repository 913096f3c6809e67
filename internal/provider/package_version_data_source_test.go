package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

func TestAccPackageVersion_PublishedAndMissing(t *testing.T) {
	e := newAccEnv(t)
	cfg := e.providerBlock() + fmt.Sprintf(`
data "deckhouse_application_package_version" "v1" {
  repository = "main"
  package    = %[1]q
  version    = "v1.0.0"
}
data "deckhouse_application_package_version" "missing" {
  repository = "main"
  package    = %[1]q
  version    = "v9.9.9"
}
output "has_replicas" {
  value = contains(keys(jsondecode(data.deckhouse_application_package_version.v1.settings_schema).properties), "replicas")
}
`, e.pkg)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.deckhouse_application_package_version.v1", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.deckhouse_application_package_version.v1", tfjsonpath.New("draft"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue("data.deckhouse_application_package_version.v1", tfjsonpath.New("id"),
					knownvalue.StringExact(dpapi.PackageVersionName("main", e.pkg, "v1.0.0"))),
				statecheck.ExpectKnownOutputValue("has_replicas", knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.deckhouse_application_package_version.missing", tfjsonpath.New("ready"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue("data.deckhouse_application_package_version.missing", tfjsonpath.New("settings_schema"), knownvalue.Null()),
			},
		}},
	})
}
