package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccAvailableClusterResource_CatalogAndMissing(t *testing.T) {
	e := newAccEnv(t)
	cfg := e.providerBlock() + fmt.Sprintf(`
data "deckhouse_available_cluster_resource" "sc" {
  namespace = %[1]q
  name      = "storageclasses"
}
data "deckhouse_available_cluster_resource" "none" {
  namespace = %[1]q
  name      = "postgresclasses"
}
`, e.namespace)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.deckhouse_available_cluster_resource.sc", tfjsonpath.New("found"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.deckhouse_available_cluster_resource.sc", tfjsonpath.New("default"), knownvalue.StringExact("fast")),
				statecheck.ExpectKnownValue("data.deckhouse_available_cluster_resource.sc", tfjsonpath.New("available"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("fast"), knownvalue.StringExact("slow")})),
				statecheck.ExpectKnownValue("data.deckhouse_available_cluster_resource.none", tfjsonpath.New("found"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue("data.deckhouse_available_cluster_resource.none", tfjsonpath.New("default"), knownvalue.Null()),
			},
		}},
	})
}
