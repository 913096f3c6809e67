package provider

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The offline data sources read a package shaped like a real DP module as
// DP's validator does: a required property with a default counts as given,
// default: null injects nothing, YAML 1.1 booleans, a bare properties:, the
// settings root's oneOf stays out of the values schema, and keyword values
// DP tolerates (type: bool, items: strings, a duplicate key) load as
// deckhouse_package verify warnings instead of refusing the package.
func TestAccPackageParity_ADPModuleLoadsAndEvaluatesAsDP(t *testing.T) {
	pkg, err := filepath.Abs(filepath.Join("..", "engine", "testdata", "packages", "logshipper"))
	if err != nil {
		t.Fatal(err)
	}
	effective := func(p ...string) statecheck.StateCheck {
		at := tfjsonpath.New("effective_settings")
		for _, k := range p {
			at = at.AtMapKey(k)
		}
		return statecheck.ExpectKnownValue("data.deckhouse_package_settings.x", at, knownvalue.NotNull())
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: emptyProvider + settingsDS("x", pkg, `  settings = { loki = { url = "http://loki:3100" } }`) +
				"data \"deckhouse_package\" \"p\" {\n  path = " + quote(pkg) + "\n  fail_on = \"error\"\n}\n",
			ConfigStateChecks: []statecheck.StateCheck{
				// required: [destination] with default Loki: present, defaulted.
				statecheck.ExpectKnownValue("data.deckhouse_package_settings.x", tfjsonpath.New("effective_settings").AtMapKey("destination"), knownvalue.StringExact("Loki")),
				// default: yes / off are YAML 1.1 booleans.
				statecheck.ExpectKnownValue("data.deckhouse_package_settings.x", tfjsonpath.New("effective_settings").AtMapKey("enabled"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.deckhouse_package_settings.x", tfjsonpath.New("effective_settings").AtMapKey("compression"), knownvalue.Bool(false)),
				// default: null injects nothing: loki holds only the url.
				statecheck.ExpectKnownValue("data.deckhouse_package_settings.x", tfjsonpath.New("effective_settings").AtMapKey("loki"),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"url": knownvalue.StringExact("http://loki:3100")})),
				effective("buffer", "type"),
				// The package loads; what DP tolerates is a verify warning.
				statecheck.ExpectKnownValue("data.deckhouse_package.p", tfjsonpath.New("verify"), knownvalue.ListPartial(map[int]knownvalue.Check{
					0: knownvalue.ObjectPartial(map[string]knownvalue.Check{"severity": knownvalue.StringExact("warning")}),
				})),
			},
		}, {
			// The settings root's oneOf applies to settings: neither
			// destination block given is refused.
			Config:      emptyProvider + settingsDS("x", pkg, `  settings = { destination = "Loki" }`),
			ExpectError: regexp.MustCompile(`Invalid settings`),
		}},
	})
}

func quote(s string) string { return `"` + s + `"` }
