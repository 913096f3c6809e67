package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
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
				},
			},
		},
	})
}

func runSettingsFunction(t *testing.T, f function.Function, schema string, settings attr.Value, result attr.Value) *function.RunResponse {
	t.Helper()
	resp := &function.RunResponse{Result: function.NewResultData(result)}
	f.Run(context.Background(), function.RunRequest{
		Arguments: function.NewArgumentsData([]attr.Value{types.StringValue(schema), settings}),
	}, resp)
	return resp
}

const unitSchema = `{"type":"object","properties":{"replicas":{"type":"integer","default":1},"name":{"type":"string"}}}`

func TestUnitFunction_ValidateSettingsListsProblems(t *testing.T) {
	t.Parallel()
	settings := convert.ToDynamic(map[string]any{"replicas": "x", "extra": true})
	resp := runSettingsFunction(t, NewValidateSettingsFunction(), unitSchema, settings, types.ListUnknown(types.ObjectType{AttrTypes: problemAttrTypes}))
	if resp.Error != nil {
		t.Fatal(resp.Error)
	}
	got, err := convert.FromAttr(resp.Result.Value())
	if err != nil {
		t.Fatal(err)
	}
	list, ok := got.([]any)
	if !ok || len(list) != 2 {
		t.Fatalf("problems: %#v", got)
	}
	if p := list[0].(map[string]any); p["path"] != "extra" || p["kind"] != "undeclared" {
		t.Fatalf("first problem %#v", p)
	}
}

func TestUnitFunction_EffectiveSettingsAppliesDefaultsAndRejects(t *testing.T) {
	t.Parallel()
	resp := runSettingsFunction(t, NewEffectiveSettingsFunction(), "type: object\nproperties:\n  replicas: {type: integer, default: 1}\n  name: {type: string}\n",
		convert.ToDynamic(map[string]any{"name": "a"}), types.DynamicUnknown())
	if resp.Error != nil {
		t.Fatal(resp.Error)
	}
	got, _ := convert.FromAttr(resp.Result.Value())
	if m, ok := got.(map[string]any); !ok || m["replicas"] != int64(1) || m["name"] != "a" {
		t.Fatalf("effective %#v", got)
	}
	resp = runSettingsFunction(t, NewEffectiveSettingsFunction(), unitSchema, convert.ToDynamic(map[string]any{"replicas": "x"}), types.DynamicUnknown())
	if resp.Error == nil || !strings.Contains(resp.Error.Error(), "replicas: must be integer, got string (type)") {
		t.Fatalf("error %v", resp.Error)
	}
	resp = runSettingsFunction(t, NewEffectiveSettingsFunction(), unitSchema, convert.ToDynamic([]any{}), types.DynamicUnknown())
	if resp.Error == nil || !strings.Contains(resp.Error.Error(), "settings must be an object, got array") {
		t.Fatalf("error %v", resp.Error)
	}
	resp = runSettingsFunction(t, NewEffectiveSettingsFunction(), " ", convert.ToDynamic(nil), types.DynamicUnknown())
	if resp.Error == nil || !strings.Contains(resp.Error.Error(), "empty") {
		t.Fatalf("error %v", resp.Error)
	}
}
