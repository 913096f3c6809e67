package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// wait_for = "Ready" waits past ConfigurationApplied until the application
// is Ready (the stand-in controller delays Ready by an annotation), and the
// state's status holds the summary, the URLs and every condition.
func TestAccApplication_WaitForReady(t *testing.T) {
	e := newAccEnv(t)
	status := func(p ...string) tfjsonpath.Path {
		at := tfjsonpath.New("status")
		for _, k := range p {
			at = at.AtMapKey(k)
		}
		return at
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{{
			Config: e.config(`  settings    = { domain = "demo.example.com" }
  wait_for    = "Ready"
  annotations = { "` + localdp.AnnotationSimulateReadyAfter + `" = "4s" }`),
			// The recorded status is the one the wait ended on: Ready only
			// when the wait went on past ConfigurationApplied.
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(appAddr, status("state"), knownvalue.StringExact("Ready")),
				statecheck.ExpectKnownValue(appAddr, status("urls"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"url": knownvalue.StringExact("https://demo.example.com")}),
				})),
				statecheck.ExpectKnownValue(appAddr, status("configuration_applied"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"status": knownvalue.StringExact("True"),
				})),
			},
		}},
	})
}
