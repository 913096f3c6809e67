package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func problemValue(path, kind, message string) knownvalue.Check {
	return knownvalue.ObjectExact(obj{"path": str(path), "kind": str(kind), "message": str(message)})
}

// TestAccFunction_SettingsFunctions proves effective_settings and
// validate_settings over a schema given as YAML (a file) or as the published
// JSON of the deckhouse_package_settings data source.
func TestAccFunction_SettingsFunctions(t *testing.T) {
	yamlFile := filepath.Join(testPackage(t, "app"), "openapi", "settings.yaml")
	schema := fmt.Sprintf("file(%q)", yamlFile)
	published := "data.deckhouse_package_settings.app.published_settings_schema"
	config := emptyProvider + settingsDS("app", testPackage(t, "app"), "") + fmt.Sprintf(`
output "effective_yaml" {
  value = provider::deckhouse::effective_settings(%[1]s, { replicas = 2, nested = { a = 7 } })
}
output "effective_published" {
  value = provider::deckhouse::effective_settings(%[2]s, {})
}
output "problems" {
  value = provider::deckhouse::validate_settings(%[1]s, { replicas = "x", bogus = 1, domain = "Bad_Domain" })
}
output "no_problems" {
  value = provider::deckhouse::validate_settings(%[2]s, { replicas = 2 })
}
output "setting" {
  value = provider::deckhouse::setting(jsonencode(provider::deckhouse::effective_settings(%[1]s, { replicas = 2 })), "nested.b")
}
output "setting_default" {
  value = provider::deckhouse::setting(provider::deckhouse::effective_settings(%[1]s, {}), "nested.c", "none")
}
`, schema, published)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: emptyProvider + fmt.Sprintf(`
output "x" {
  value = provider::deckhouse::effective_settings(%s, { replicas = 5, maxReplicas = 3 })
}`, schema),
				ExpectError: expectText(`DP rejects the settings`, `replicas must not exceed maxReplicas`),
			},
			{
				Config: emptyProvider + fmt.Sprintf(`
output "x" {
  value = provider::deckhouse::validate_settings(%s, "replicas")
}`, schema),
				ExpectError: expectText(`settings must be an object, got string`),
			},
			{
				Config: emptyProvider + `
output "x" {
  value = provider::deckhouse::effective_settings("type: [", {})
}`,
				ExpectError: expectText(`invalid settings schema`),
			},
			{
				Config: emptyProvider + fmt.Sprintf(`
output "x" {
  value = provider::deckhouse::setting(provider::deckhouse::effective_settings(%s, {}), "nested.bb")
}`, schema),
				ExpectError: expectText(`no setting at "nested.bb": nested has no key "bb"`),
			},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("effective_yaml", defaultsOf(obj{
						"replicas": i64(2),
						"nested":   knownvalue.ObjectExact(obj{"a": i64(7), "b": i64(2)}),
					})),
					statecheck.ExpectKnownOutputValue("effective_published", defaultsOf(nil)),
					statecheck.ExpectKnownOutputValue("problems", knownvalue.ListExact([]knownvalue.Check{
						problemValue("bogus", "undeclared", `field "bogus" is not declared in the schema`),
						problemValue("domain", "pattern", "Enter a domain name, for example, app.example.com."),
						problemValue("replicas", "type", "must be integer, got string"),
					})),
					statecheck.ExpectKnownOutputValue("no_problems", knownvalue.ListExact([]knownvalue.Check{})),
					statecheck.ExpectKnownOutputValue("setting", i64(2)),
					statecheck.ExpectKnownOutputValue("setting_default", str("none")),
				},
			},
		},
	})
}
