package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// testPackage is the absolute path of a fixture package (tofu runs in its
// own working folder).
func testPackage(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "packages", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// expectText matches a diagnostic text whatever the line wrapping of the CLI.
func expectText(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		quoted[i] = strings.Join(words, `[\s│]+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

// settingsDS renders a deckhouse_package_settings data source.
func settingsDS(name, pkg, body string) string {
	return fmt.Sprintf("data \"deckhouse_package_settings\" %q {\n  package_path = %q\n%s\n}\n", name, pkg, body)
}

const emptyProvider = "provider \"deckhouse\" {}\n"

func dsAttr(name, attr string) (string, tfjsonpath.Path) {
	return "data.deckhouse_package_settings." + name, tfjsonpath.New(attr)
}

func expectDS(name, attr string, want knownvalue.Check) statecheck.StateCheck {
	addr, p := dsAttr(name, attr)
	return statecheck.ExpectKnownValue(addr, p, want)
}

func i64(v int64) knownvalue.Check  { return knownvalue.Int64Exact(v) }
func str(v string) knownvalue.Check { return knownvalue.StringExact(v) }

type obj = map[string]knownvalue.Check

// defaultsOf are the effective settings of the app package for empty settings.
func defaultsOf(extra obj) knownvalue.Check {
	m := obj{
		"replicas":    i64(1),
		"maxReplicas": i64(3),
		"logLevel":    str("Info"),
		"nested":      knownvalue.ObjectExact(obj{"a": i64(1), "b": i64(2)}),
		"storage":     knownvalue.ObjectExact(obj{"mode": str("Internal")}),
		"volumeClass": str("standard"),
	}
	for k, v := range extra {
		m[k] = v
	}
	return knownvalue.ObjectExact(m)
}

// TestAccPackageSettings_Accepts proves, for every rule, a configuration DP
// accepts, and the computed effective settings, values and published schemas.
func TestAccPackageSettings_Accepts(t *testing.T) {
	app := testPackage(t, "app")
	grants := `project_resources = { storageclasses = { default = "fast", available = ["fast", "slow"] } }`
	config := emptyProvider +
		// Defaults; nested defaults only where the parent exists (no postgres).
		settingsDS("defaults", app, "") +
		// Deep merge of defaults under user settings; nested defaults under a given parent.
		settingsDS("merge", app, `settings = { nested = { a = 5 }, postgres = {} }`) +
		// Types, enum, pattern, required with its value, CEL rule satisfied.
		settingsDS("valid", app, `settings = { replicas = 2, maxReplicas = 3, logLevel = "Debug", domain = "app.example.com", auth = { realm = "corp" } }`) +
		// Explicit additionalProperties allows arbitrary keys; a branch discriminator without the branch-only field.
		settingsDS("open_map", app, `settings = { labels = { team = "a", "app.kubernetes.io/name" = "x" }, branchy = { kind = "B" } }`) +
		// oldSelf rules are skipped on install and pass on an allowed update.
		settingsDS("oldself_install", app, `settings = { size = 1 }`) +
		settingsDS("oldself_update", app, `settings = { size = 6 }
  previous_settings = { size = 5 }`) +
		// Immutable: omitted field whose default equals the applied value; unchanged object; new array element.
		settingsDS("immutable_ok", app, `settings = { frozen = { id = "a" }, users = [{ name = "a" }, { name = "b" }] }
  previous_settings = { volumeClass = "standard", frozen = { id = "a" }, users = [{ name = "a" }] }`) +
		// Grants: default injected, an available value kept, no default → unchanged and unchecked.
		settingsDS("grant_default", app, grants) +
		settingsDS("grant_given", app, `settings = { storageClass = "slow" }
  `+grants) +
		settingsDS("grant_no_default", app, `project_resources = { storageclasses = { available = ["fast"] } }`) +
		settingsDS("grant_no_default_given", app, `settings = { storageClass = "gold" }
  project_resources = { storageclasses = { available = ["fast"] } }`) +
		// Switches: a destructive one acknowledged, a warning one (a warning only).
		settingsDS("switch_allowed", app, `settings = { storage = { mode = "External", url = "s3://bucket" } }
  previous_settings = { storage = { mode = "Internal" } }
  allow_destructive_settings_switch = true`) +
		settingsDS("switch_warning", app, `settings = { storage = { mode = "Hybrid" } }
  previous_settings = { storage = { mode = "Internal" } }`) +
		// Hook values validated against values.yaml and merged over its defaults.
		settingsDS("hooks", app, `hook_values = { internal = { adminPassword = "secret" } }`) +
		// Without values.yaml: values are the effective settings plus hook values.
		settingsDS("novalues", testPackage(t, "novalues"), `hook_values = { extra = 1, nothing = null, list = [1, "a", null] }`) +
		// Legacy config-values.yaml.
		settingsDS("legacy", testPackage(t, "legacy"), `settings = { replicas = 4 }`)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				expectDS("defaults", "effective_settings", defaultsOf(nil)),
				expectDS("defaults", "values", knownvalue.ObjectPartial(obj{
					"replicas": i64(1),
					"internal": knownvalue.ObjectExact(obj{"shards": i64(2)}),
				})),
				expectDS("merge", "effective_settings", defaultsOf(obj{
					"nested":   knownvalue.ObjectExact(obj{"a": i64(5), "b": i64(2)}),
					"postgres": knownvalue.ObjectExact(obj{"tuning": knownvalue.ObjectExact(obj{"maxConnections": i64(100)})}),
				})),
				expectDS("valid", "effective_settings", defaultsOf(obj{
					"replicas": i64(2), "logLevel": str("Debug"), "domain": str("app.example.com"),
					"auth": knownvalue.ObjectExact(obj{"realm": str("corp")}),
				})),
				expectDS("open_map", "effective_settings", knownvalue.ObjectPartial(obj{
					"labels":  knownvalue.ObjectExact(obj{"team": str("a"), "app.kubernetes.io/name": str("x")}),
					"branchy": knownvalue.ObjectExact(obj{"kind": str("B")}),
				})),
				expectDS("oldself_install", "effective_settings", knownvalue.ObjectPartial(obj{"size": i64(1)})),
				expectDS("oldself_update", "effective_settings", knownvalue.ObjectPartial(obj{"size": i64(6)})),
				expectDS("immutable_ok", "effective_settings", knownvalue.ObjectPartial(obj{
					"volumeClass": str("standard"),
					"users": knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(obj{"name": str("a")}), knownvalue.ObjectExact(obj{"name": str("b")}),
					}),
				})),
				expectDS("grant_default", "effective_settings", defaultsOf(obj{"storageClass": str("fast")})),
				expectDS("grant_given", "effective_settings", knownvalue.ObjectPartial(obj{"storageClass": str("slow")})),
				expectDS("grant_no_default", "effective_settings", defaultsOf(nil)),
				expectDS("grant_no_default_given", "effective_settings", knownvalue.ObjectPartial(obj{"storageClass": str("gold")})),
				expectDS("switch_allowed", "effective_settings", knownvalue.ObjectPartial(obj{
					"storage": knownvalue.ObjectExact(obj{"mode": str("External"), "url": str("s3://bucket")}),
				})),
				expectDS("switch_warning", "effective_settings", knownvalue.ObjectPartial(obj{
					"storage": knownvalue.ObjectExact(obj{"mode": str("Hybrid")}),
				})),
				expectDS("hooks", "values", knownvalue.ObjectPartial(obj{
					"internal": knownvalue.ObjectExact(obj{"adminPassword": str("secret"), "shards": i64(2)}),
				})),
				expectDS("hooks", "effective_settings", defaultsOf(nil)),
				expectDS("novalues", "values", knownvalue.ObjectExact(obj{
					"greeting": str("hello"), "extra": i64(1), "nothing": knownvalue.Null(),
					"list": knownvalue.ListExact([]knownvalue.Check{i64(1), str("a"), knownvalue.Null()}),
				})),
				expectDS("novalues", "published_values_schema", knownvalue.Null()),
				expectDS("legacy", "effective_settings", knownvalue.ObjectExact(obj{"replicas": i64(4), "retention": str("7d")})),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				// Published schemas keep standard keywords and x-deckhouse-* extensions only.
				resource.TestCheckResourceAttrWith("data.deckhouse_package_settings.defaults", "published_settings_schema", func(v string) error {
					for _, gone := range []string{"x-examples", "x-kubernetes-preserve-unknown-fields"} {
						if strings.Contains(v, gone) {
							return fmt.Errorf("published settings schema keeps %s", gone)
						}
					}
					for _, kept := range []string{"x-deckhouse-validations", "x-deckhouse-immutable", "x-deckhouse-grantable-resource", "x-deckhouse-ui-validation-message", "x-deckhouse-enum-switch-settings"} {
						if !strings.Contains(v, kept) {
							return fmt.Errorf("published settings schema lost %s", kept)
						}
					}
					return nil
				}),
				resource.TestCheckResourceAttrWith("data.deckhouse_package_settings.defaults", "published_values_schema", func(v string) error {
					if strings.Contains(v, "x-extend") {
						return fmt.Errorf("published values schema keeps x-extend")
					}
					if !strings.Contains(v, "at most 8 shards") {
						return fmt.Errorf("published values schema lost its CEL rule")
					}
					return nil
				}),
			),
		}},
	})
}

// TestAccPackageSettings_Rejects proves, for every rule, a configuration DP
// rejects, with the attribute path spelled out and DP's text.
func TestAccPackageSettings_Rejects(t *testing.T) {
	app := testPackage(t, "app")
	cases := []struct {
		name string
		body string
		want *regexp.Regexp
	}{
		{"undeclared field", `settings = { bogus = 1 }`,
			expectText(`Invalid settings.bogus: field not declared in the package schema`, `field "bogus" is not declared in the schema`)},
		{"field declared only in a oneOf branch", `settings = { branchy = { kind = "B", extra = "x" } }`,
			expectText(`Invalid settings.branchy.extra: field not declared in the package schema`, `field "extra" is not declared in the schema`)},
		{"type", `settings = { replicas = "many" }`,
			expectText(`Invalid settings.replicas: wrong type`, `must be integer, got string`)},
		{"enum", `settings = { logLevel = "Trace" }`,
			expectText(`Invalid settings.logLevel: value not allowed`, `Info`)},
		{"pattern shows the ui-validation-message", `settings = { domain = "Bad_Domain" }`,
			expectText(`Invalid settings.domain: does not match the pattern`, `Enter a domain name, for example, app.example.com.`)},
		{"CEL rule message verbatim", `settings = { replicas = 5, maxReplicas = 3 }`,
			expectText(`Invalid settings: rule failed`, `replicas must not exceed maxReplicas`)},
		{"oldSelf rule enforced on update", `settings = { size = 1 }
  previous_settings = { size = 5 }`,
			expectText(`Invalid settings.size: rule failed`, `size can only grow`)},
		{"immutable field omitted with a different applied value", `previous_settings = { volumeClass = "fast" }`,
			expectText(`Invalid settings.volumeClass: immutable field changed`, `field "volumeClass" is immutable: it can only be set when the application is created`)},
		{"immutable object is compared whole", `settings = { frozen = { id = "b" } }
  previous_settings = { frozen = { id = "a" } }`,
			expectText(`Invalid settings.frozen: immutable field changed`, `field "frozen" is immutable`)},
		{"removing an immutable object", `previous_settings = { frozen = { id = "a" } }`,
			expectText(`Invalid settings.frozen: immutable field changed`, `field "frozen" is immutable`)},
		{"immutable field of an existing array element", `settings = { users = [{ name = "z" }] }
  previous_settings = { users = [{ name = "a" }] }`,
			expectText(`Invalid settings.users[0].name: immutable field changed`)},
		{"grant value not available to the project", `settings = { storageClass = "gold" }
  project_resources = { storageclasses = { default = "fast", available = ["fast", "slow"] } }`,
			expectText(`Invalid settings.storageClass: resource not available to the project`, `field "storageClass": the value is not available to this project for resource "storageclasses" (available: fast, slow)`)},
		{"destructive switch refused", `settings = { storage = { mode = "External", url = "s3://bucket" } }
  previous_settings = { storage = { mode = "Internal" } }`,
			expectText(`Invalid settings.storage.mode: destructive switch not acknowledged`, `Switching to external storage **deletes the data** stored in the cluster.`)},
		{"hook values CEL rule", `hook_values = { internal = { shards = 9 } }`,
			expectText(`Invalid hook_values.internal.shards: rule failed`, `at most 8 shards`)},
		{"hook values undeclared field", `hook_values = { internal = { other = 1 } }`,
			expectText(`Invalid hook_values.internal.other: field not declared in the package schema`)},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, tc := range cases {
		steps = append(steps, resource.TestStep{
			Config:      emptyProvider + settingsDS("x", app, tc.body),
			ExpectError: tc.want,
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

// TestAccPackageSettings_BadInput proves bad packages and inputs give a
// clear error naming the attribute.
func TestAccPackageSettings_BadInput(t *testing.T) {
	app := testPackage(t, "app")
	dir := t.TempDir()
	unreadable := filepath.Join(dir, "unreadable")
	if err := os.MkdirAll(filepath.Join(unreadable, "openapi", "settings.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(dir, "malformed")
	if err := os.MkdirAll(filepath.Join(malformed, "openapi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(malformed, "openapi", "settings.yaml"), []byte("type: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pkg, body string
		want      *regexp.Regexp
	}{
		{filepath.Join(dir, "missing"), "", expectText(`Cannot load the package`, `missing`)},
		{dir, "", expectText(`Cannot load the package`, `openapi`)},
		{unreadable, "", expectText(`Cannot load the package`, `openapi/settings.yaml`)},
		{malformed, "", expectText(`Cannot load the package`, `openapi/settings.yaml`, `YAML`)},
		{app, `settings = "replicas=2"`, expectText(`Invalid settings: type`, `settings must be an object, got string`)},
		{app, `previous_settings = [1]`, expectText(`Invalid previous_settings: type`, `previous_settings must be an object, got array`)},
		{app, `hook_values = true`, expectText(`Invalid hook_values: type`, `hook_values must be an object, got boolean`)},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, tc := range cases {
		steps = append(steps, resource.TestStep{
			Config:      emptyProvider + settingsDS("x", tc.pkg, tc.body),
			ExpectError: tc.want,
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

// TestAccPackageSettings_UnknownAtPlan proves settings unknown at plan give
// unknown outputs and no error, then the real verdict at apply.
func TestAccPackageSettings_UnknownAtPlan(t *testing.T) {
	app := testPackage(t, "app")
	config := emptyProvider + `
resource "terraform_data" "domain" {
  input = "app.example.com"
}
` + settingsDS("x", app, `settings = { domain = terraform_data.domain.output }`)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("data.deckhouse_package_settings.x", tfjsonpath.New("effective_settings")),
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				expectDS("x", "effective_settings", knownvalue.ObjectPartial(obj{"domain": str("app.example.com")})),
			},
		}},
	})
}
