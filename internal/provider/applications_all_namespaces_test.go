package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccApplicationsDataSource_WithoutNamespaceListsEveryNamespace: with
// no namespace, deckhouse_applications lists the Applications of every
// namespace, sorted by namespace then name, and the package filter still
// applies.
func TestAccApplicationsDataSource_WithoutNamespaceListsEveryNamespace(t *testing.T) {
	e := newAccEnv(t)
	second := e.inNamespace("b")
	e.seedApplication("web", e.pkg, nil)
	second.seedApplication("api", e.pkg, nil)
	second.seedApplication("web", e.pkg, nil)

	cfg := e.providerBlock() + fmt.Sprintf(`
data "deckhouse_applications" "everywhere" {
  package_name = %q
}
output "apps" {
  value = [for a in data.deckhouse_applications.everywhere.items : "${a.namespace}/${a.name}"]
}
`, e.pkg)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("apps", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact(e.namespace + "/web"),
					knownvalue.StringExact(second.namespace + "/api"),
					knownvalue.StringExact(second.namespace + "/web"),
				})),
				statecheck.ExpectKnownValue("data.deckhouse_applications.everywhere", tfjsonpath.New("id"), knownvalue.StringExact("*/"+e.pkg)),
			},
		}},
	})
}
