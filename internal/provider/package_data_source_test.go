package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func packageDS(name, pkg, body string) string {
	return fmt.Sprintf("data \"deckhouse_package\" %q {\n  path = %q\n%s\n}\n", name, pkg, body)
}

func expectPkg(name string, p tfjsonpath.Path, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue("data.deckhouse_package."+name, p, want)
}

func finding(rule, severity, schemaPath string) knownvalue.Check {
	return knownvalue.ObjectPartial(obj{
		"rule":        str(rule),
		"severity":    str(severity),
		"file":        str("openapi/settings.yaml"),
		"schema_path": str(schemaPath),
	})
}

// TestAccPackage_FormAndVerify proves the package description (schema file,
// top-level fields with form metadata) and the verify findings with fail_on.
func TestAccPackage_FormAndVerify(t *testing.T) {
	config := emptyProvider +
		packageDS("app", testPackage(t, "app"), "") +
		packageDS("legacy", testPackage(t, "legacy"), "") +
		packageDS("warnonly", testPackage(t, "warnonly"), "") +
		packageDS("unverified", testPackage(t, "unverified"), `  fail_on = "never"`)
	settings := tfjsonpath.New("settings")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					expectPkg("app", tfjsonpath.New("settings_schema_file"), str("settings.yaml")),
					expectPkg("app", tfjsonpath.New("verify"), knownvalue.ListExact([]knownvalue.Check{})),
					expectPkg("app", settings.AtSliceIndex(0), knownvalue.ObjectExact(obj{
						"name": str("replicas"), "type": str("integer"), "description": str(""),
						"ui_order": i64(10), "ui_group": str(""), "ui_advanced": knownvalue.Bool(false),
					})),
					expectPkg("app", settings.AtSliceIndex(3), knownvalue.ObjectExact(obj{
						"name": str("logLevel"), "type": str("string"), "description": str("Log verbosity."),
						"ui_order": knownvalue.Null(), "ui_group": str(""), "ui_advanced": knownvalue.Bool(true),
					})),
					expectPkg("app", settings.AtSliceIndex(6), knownvalue.ObjectPartial(obj{
						"name": str("storageClass"), "ui_group": str("Storage"),
					})),
					expectPkg("app", settings, knownvalue.ListSizeExact(15)),
					expectPkg("app", tfjsonpath.New("published_values_schema"), knownvalue.NotNull()),
					expectPkg("legacy", tfjsonpath.New("settings_schema_file"), str("config-values.yaml")),
					expectPkg("legacy", settings, knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(obj{"name": str("retention"), "description": str("How long to keep data.")}),
						knownvalue.ObjectPartial(obj{"name": str("replicas")}),
					})),
					expectPkg("legacy", tfjsonpath.New("published_values_schema"), knownvalue.Null()),
					expectPkg("warnonly", tfjsonpath.New("verify"), knownvalue.ListExact([]knownvalue.Check{
						finding("enum", "warning", "/properties/mode/enum"),
					})),
					expectPkg("unverified", tfjsonpath.New("verify"), knownvalue.SetExact([]knownvalue.Check{
						finding("bilingual", "error", ""),
						finding("enum", "warning", "/properties/mode/enum"),
						finding("advanced", "error", "/properties/nested/properties/hidden"),
					})),
				},
			},
			{
				Config:      emptyProvider + packageDS("x", testPackage(t, "unverified"), ""),
				ExpectError: expectText(`Package verify error: bilingual`, `missing Russian documentation file openapi/doc-ru-settings.yaml`),
			},
			{
				Config:      emptyProvider + packageDS("x", testPackage(t, "unverified"), ""),
				ExpectError: expectText(`Package verify error: advanced`, `x-deckhouse-ui-advanced is allowed only on top-level fields`),
			},
			{
				Config:      emptyProvider + packageDS("x", testPackage(t, "warnonly"), `  fail_on = "warning"`),
				ExpectError: expectText(`Package verify warning: enum`, `enum value "fast" is not in CamelCase`),
			},
			{
				Config:      emptyProvider + packageDS("x", testPackage(t, "app"), `  fail_on = "always"`),
				ExpectError: expectText(`Invalid fail_on`, `fail_on must be one of "error", "warning" or "never", got "always"`),
			},
			{
				Config:      emptyProvider + packageDS("x", t.TempDir(), ""),
				ExpectError: regexp.MustCompile(`Cannot load the package`),
			},
		},
	})
}
