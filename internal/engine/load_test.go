package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad_SettingsYAMLPreferredOverLegacyConfigValues(t *testing.T) {
	t.Parallel()
	p, err := loadFS(pkgFS(map[string]string{
		"settings.yaml":      "type: object\nproperties:\n  a: {type: string}\n",
		"config-values.yaml": "type: object\nproperties:\n  b: {type: string}\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p.SettingsFile() != "settings.yaml" {
		t.Fatalf("SettingsFile = %q", p.SettingsFile())
	}
	if got := check(t, p, "b: x"); !sameLines(got, []string{"b|undeclared|additionalProperties"}) {
		t.Fatalf("config-values.yaml was used: %v", got)
	}
}

func TestLoad_LegacyConfigValuesOnlyWhenSettingsAbsent(t *testing.T) {
	t.Parallel()
	p, err := loadFS(pkgFS(map[string]string{
		"config-values.yaml": "type: object\nproperties:\n  b: {type: string}\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p.SettingsFile() != "config-values.yaml" {
		t.Fatalf("SettingsFile = %q", p.SettingsFile())
	}
	if got := check(t, p, "b: x"); len(got) != 0 {
		t.Fatalf("unexpected problems %v", got)
	}
	if p.HasValuesSchema() {
		t.Fatal("HasValuesSchema without values.yaml")
	}
}

func TestLoad_DocRuFilesIgnoredForEvaluation(t *testing.T) {
	t.Parallel()
	_, err := loadFS(pkgFS(map[string]string{
		"settings.yaml":        "type: object\n",
		"doc-ru-settings.yaml": "this: [is not even valid",
	}))
	if err != nil {
		t.Fatal(err)
	}
}

func TestLoad_AnchorsAndMergeKeys(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
x-defs:
  port: &port
    type: integer
    minimum: 1
    maximum: 65535
type: object
properties:
  http:
    <<: *port
    default: 80
  https:
    <<: *port
    maximum: 443
  both:
    <<: [*port, {description: merged}]
`, "")
	props := p.settings.tree["properties"].(map[string]any)
	if props["https"].(map[string]any)["maximum"] != int64(443) {
		t.Fatalf("explicit key must win over the merged one: %v", props["https"])
	}
	if props["both"].(map[string]any)["description"] != "merged" {
		t.Fatalf("list merge failed: %v", props["both"])
	}
	for doc, want := range map[string][]string{
		"http: 8080":  {},
		"http: 0":     {"http|schema|minimum"},
		"https: 444":  {"https|schema|maximum"},
		"both: 70000": {"both|schema|maximum"},
	} {
		if got := check(t, p, doc); !sameLines(got, want) {
			t.Errorf("%s: got %v, want %v", doc, got, want)
		}
	}
}

func TestLoad_KeyOrderFollowsSource(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, "type: object\nproperties:\n  zeta: {type: string}\n  alpha: {type: string}\n  mid: {type: string}\n", "")
	got := p.settings.keys(p.settings.tree["properties"].(map[string]any))
	if strings.Join(got, ",") != "zeta,alpha,mid" {
		t.Fatalf("order = %v", got)
	}
}

func TestLoad_DefaultNullIsKept(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, "type: object\nproperties:\n  a:\n    type: string\n    nullable: true\n    default: null\n", "")
	a := p.settings.tree["properties"].(map[string]any)["a"].(map[string]any)
	if v, ok := a["default"]; !ok || v != nil {
		t.Fatalf("default: null lost: %v", a)
	}
	if got := check(t, p, "a: null"); len(got) != 0 {
		t.Fatalf("null on nullable: %v", got)
	}
}

func TestLoadDir_MissingDirOrOpenAPIIsClearError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, tc := range map[string]struct{ dir, want string }{
		"missing dir":     {filepath.Join(dir, "nope"), "package directory cannot be read"},
		"missing openapi": {dir, "no readable openapi/ directory"},
	} {
		_, err := LoadDir(tc.dir)
		var se *SchemaError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "ok", "openapi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok", "openapi", "settings.yaml"), []byte("type: object\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(filepath.Join(dir, "ok")); err != nil {
		t.Fatal(err)
	}
}

func TestRef_LocalRefsInlined(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
definitions:
  resources:
    type: object
    properties:
      cpu: {type: string, pattern: '^[0-9]+m?$'}
      memory: {$ref: '#/definitions/quantity'}
  quantity: {type: string, pattern: '^[0-9]+(Mi|Gi)$'}
type: object
properties:
  app:
    $ref: '#/definitions/resources'
    x-deckhouse-ui-order: 3
  sidecar: {$ref: '#/definitions/resources'}
`, "")
	app := p.settings.tree["properties"].(map[string]any)["app"].(map[string]any)
	if _, ok := app["$ref"]; ok {
		t.Fatal("$ref left in the prepared tree")
	}
	if app["x-deckhouse-ui-order"] != int64(3) || app["additionalProperties"] != false {
		t.Fatalf("sibling keyword lost or object not closed: %v", app)
	}
	want := []string{"app.memory|pattern|pattern", "sidecar.extra|undeclared|additionalProperties"}
	if got := check(t, p, "app: {cpu: 100m, memory: 1G}\nsidecar: {extra: 1}"); !sameLines(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestExtend_MergeRules(t *testing.T) {
	t.Parallel()
	settings := `
type: object
title: Settings
description: settings description
required: [a, shared]
definitions:
  fromSettings: {type: string}
patternProperties:
  '^s-': {type: string}
properties:
  a: {type: string}
  shared: {type: string}
x-deckhouse-validations:
  - {expression: "true", message: settings rule}
`
	values := `
x-extend:
  schema: settings.yaml
type: object
required: [shared, internal]
definitions:
  fromValues: {type: integer}
patternProperties:
  '^v-': {type: integer}
properties:
  shared: {type: integer}
  internal:
    type: object
    default: {}
    properties:
      adminPassword: {type: string}
`
	p := loadSchemas(t, settings, values)
	v := p.values.tree
	if v["title"] != "Settings" || v["description"] != "settings description" {
		t.Errorf("title/description must fall back to the parent's: %v %v", v["title"], v["description"])
	}
	if _, ok := v["x-extend"]; ok {
		t.Error("x-extend kept in the prepared values tree")
	}
	if _, ok := v["x-deckhouse-validations"]; !ok {
		t.Error("root extensions of the parent must be unioned")
	}
	req := v["required"].([]any)
	if len(req) != 3 || req[0] != "a" || req[1] != "shared" || req[2] != "internal" {
		t.Errorf("required = %v, want de-duplicated union [a shared internal]", req)
	}
	for _, kw := range []string{"definitions", "patternProperties", "properties"} {
		if n := len(v[kw].(map[string]any)); n < 2 {
			t.Errorf("%s not unioned: %v", kw, v[kw])
		}
	}
	if got := v["properties"].(map[string]any)["shared"].(map[string]any)["type"]; got != "integer" {
		t.Errorf("child must win on a name clash, shared.type = %v", got)
	}
	got := renderProblems(p.values.validate(DocHookValues, yamlValue(t, "a: x\nshared: 1\ninternal: {adminPassword: p}\ns-x: y\nv-y: 2")))
	if len(got) != 0 {
		t.Errorf("extended values rejected: %v", got)
	}
	got = renderProblems(p.values.validate(DocHookValues, yamlValue(t, "shared: 1\ninternal: {}\nother: 1")))
	if !sameLines(got, []string{"a|required|required", "other|undeclared|additionalProperties"}) {
		t.Errorf("got %v", got)
	}
}

func TestExtend_TargetIsTheSettingsFileUsed(t *testing.T) {
	t.Parallel()
	p, err := loadFS(pkgFS(map[string]string{
		"config-values.yaml": "type: object\nproperties:\n  legacy: {type: string}\n",
		"values.yaml":        "x-extend: {schema: settings.yaml}\ntype: object\nproperties:\n  internal: {type: object, default: {}}\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.values.tree["properties"].(map[string]any)["legacy"]; !ok {
		t.Fatal("x-extend did not merge config-values.yaml")
	}
}

func TestExtend_WithoutXExtendValuesStandAlone(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, "type: object\nproperties:\n  a: {type: string}\n", "type: object\nproperties:\n  internal: {type: object}\n")
	if _, ok := p.values.tree["properties"].(map[string]any)["a"]; ok {
		t.Fatal("settings merged without x-extend")
	}
}

// TestExtend_SettingsRootKeywordsOtherThanTheMergedOnesStayOut: x-extend
// takes only properties, patternProperties, definitions, x-* extensions,
// required, title and description from the settings root; a settings-root
// oneOf, anyOf, not, enum, minProperties or type does not reach values.
func TestExtend_SettingsRootKeywordsOtherThanTheMergedOnesStayOut(t *testing.T) {
	t.Parallel()
	const values = "x-extend: {schema: settings.yaml}\nproperties:\n  internal: {type: object, default: {}, additionalProperties: true}\n"
	cases := []struct {
		name, settingsRoot, keyword string
	}{
		{"oneOf", "oneOf: [{required: [a]}, {required: [b]}]", "oneOf"},
		{"anyOf", "anyOf: [{required: [a]}]", "anyOf"},
		{"allOf", "allOf: [{required: [a]}]", "allOf"},
		{"not", "not: {required: [a, b]}", "not"},
		{"minProperties", "minProperties: 1", "minProperties"},
		{"maxProperties", "maxProperties: 1", "maxProperties"},
		{"type", "type: object", "type"},
		{"additionalProperties", "additionalProperties: true", "additionalProperties"},
		{"default", "default: {a: x}", "default"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			settings := tc.settingsRoot + "\nproperties:\n  a: {type: string}\n  b: {type: string}\n"
			p := loadSchemas(t, settings, values)
			if tc.keyword != "additionalProperties" {
				if _, ok := p.values.tree[tc.keyword]; ok {
					t.Fatalf("%s of the settings root reached the values schema", tc.keyword)
				}
			} else if p.values.tree[tc.keyword] != false {
				t.Fatalf("additionalProperties of the settings root reached the values schema: %v", p.values.tree[tc.keyword])
			}
			// Values holding both a and b (or neither) are valid values.
			for _, doc := range []string{"a: x\nb: y\ninternal: {}", "internal: {k: 1}"} {
				if got := renderProblems(p.values.validate(DocHookValues, yamlValue(t, doc))); len(got) != 0 {
					t.Fatalf("values %q rejected: %v", doc, got)
				}
			}
			// The settings themselves still obey the settings root.
			if tc.keyword == "minProperties" || tc.keyword == "anyOf" || tc.keyword == "allOf" {
				if got := check(t, p, "{}"); len(got) == 0 {
					t.Fatalf("settings {} accepted under %s", tc.keyword)
				}
			}
		})
	}
}

// HasValuesSchema reports whether the package has a values schema.
func (p *Package) HasValuesSchema() bool { return p.values != nil }
