package engine

import (
	"strings"
	"testing"
)

const grantSchema = `
type: object
properties:
  storageClass:
    type: string
    x-deckhouse-grantable-resource: storageclasses
  withDefault:
    type: string
    default: schema-default
    x-deckhouse-grantable-resource: storageclasses
  postgres:
    type: object
    properties:
      storageClass:
        type: string
        x-deckhouse-grantable-resource: postgresclasses
`

// grantEffective builds effective settings as Evaluate does and applies grants.
func grantEffective(t *testing.T, doc string, cat Catalog) (map[string]any, []*Problem) {
	t.Helper()
	eff, ps, _ := grantEffectiveWarn(t, grantSchema, doc, cat)
	return eff, ps
}

func grantEffectiveWarn(t *testing.T, schema, doc string, cat Catalog) (map[string]any, []*Problem, []*Problem) {
	t.Helper()
	tree := yamlTree(t, schema)
	user := yamlTree(t, doc)
	eff := effectiveWithDefaults(tree, user)
	var ps, ws []*Problem
	applyGrants(tree, eff, user, cat, &ps, &ws)
	return eff, ps, ws
}

var projectCatalog = Catalog{
	"storageclasses":  {Default: "fast", Available: []string{"fast", "slow"}},
	"postgresclasses": {Default: "pg-ssd", Available: []string{"pg-ssd"}},
}

func TestGrant_MissingValueGetsProjectDefault(t *testing.T) {
	eff, ps := grantEffective(t, `{postgres: {}}`, projectCatalog)
	if len(ps) != 0 {
		t.Fatal(problemSummary(ps))
	}
	assertValue(t, eff, `{storageClass: fast, withDefault: schema-default, postgres: {storageClass: pg-ssd}}`)
}

// TestGrant_MissingParentsAreCreated: postgres.storageClass is injected
// even when postgres is absent, as DP's grant defaults do.
func TestGrant_MissingParentsAreCreated(t *testing.T) {
	eff, _ := grantEffective(t, `{}`, projectCatalog)
	assertValue(t, eff, `{storageClass: fast, withDefault: schema-default, postgres: {storageClass: pg-ssd}}`)
	// A parent present as null or as a non-object is not replaced.
	eff, _ = grantEffective(t, `{postgres: null}`, projectCatalog)
	assertValue(t, eff, `{storageClass: fast, withDefault: schema-default, postgres: null}`)
}

func TestGrant_EmptyStringGetsProjectDefault(t *testing.T) {
	eff, ps := grantEffective(t, `{storageClass: "", withDefault: ""}`, projectCatalog)
	if len(ps) != 0 {
		t.Fatal(problemSummary(ps))
	}
	assertValue(t, eff, `{storageClass: fast, withDefault: fast, postgres: {storageClass: pg-ssd}}`)
}

// TestGrant_SchemaDefaultWinsOverProjectDefault: the project default fills
// only what is still absent or "" after the settings.yaml defaults.
func TestGrant_SchemaDefaultWinsOverProjectDefault(t *testing.T) {
	eff, _ := grantEffective(t, `{}`, projectCatalog)
	if eff["withDefault"] != "schema-default" {
		t.Fatalf("withDefault = %v, want the schema default", eff["withDefault"])
	}
}

func TestGrant_UserValueWinsOverProjectDefault(t *testing.T) {
	eff, ps := grantEffective(t, `{storageClass: slow}`, projectCatalog)
	if len(ps) != 0 || eff["storageClass"] != "slow" {
		t.Fatalf("eff=%v problems=%v", eff, problemSummary(ps))
	}
}

func TestGrant_UnavailableUserValueIsRejectedWithDPTextWithoutTheValue(t *testing.T) {
	_, ps := grantEffective(t, `{storageClass: gold, postgres: {storageClass: pg-hdd}}`, projectCatalog)
	want := []string{
		`settings grant storageClass: field "storageClass": the value is not available to this project for resource "storageclasses" (available: fast, slow)`,
		`settings grant postgres.storageClass: field "postgres.storageClass": the value is not available to this project for resource "postgresclasses" (available: pg-ssd)`,
	}
	sortProblems(ps)
	got := problemSummary(ps)
	if len(got) != 2 || got[0] != want[1] || got[1] != want[0] {
		t.Fatalf("got %q", got)
	}
	if ps[0].Kind != KindGrant || ps[0].Rule != "x-deckhouse-grantable-resource" {
		t.Fatalf("kind/rule: %+v", ps[0])
	}
}

func TestGrant_CatalogWithoutDefaultLeavesFieldUnchanged(t *testing.T) {
	cat := Catalog{"storageclasses": {Available: []string{"fast"}}}
	eff, ps, ws := grantEffectiveWarn(t, grantSchema, `{storageClass: gold}`, cat)
	if len(ps) != 0 {
		t.Fatalf("value must not be rejected: %v", problemSummary(ps))
	}
	// DP's code rejects it: a warning says so.
	if len(ws) != 1 || ws[0].Kind != KindGrant || ws[0].Path.String() != "storageClass" {
		t.Fatalf("warnings: %v", problemSummary(ws))
	}
	if _, _, ws := grantEffectiveWarn(t, grantSchema, `{storageClass: fast}`, cat); len(ws) != 0 {
		t.Fatalf("an available value is not warned about: %v", problemSummary(ws))
	}
	assertValue(t, eff, `{storageClass: gold, withDefault: schema-default}`)
	eff, _ = grantEffective(t, `{}`, cat)
	assertValue(t, eff, `{withDefault: schema-default}`)
}

func TestGrant_AbsentCatalogLeavesFieldUnchanged(t *testing.T) {
	for _, cat := range []Catalog{nil, {"other": {Default: "x", Available: []string{"x"}}}} {
		eff, ps := grantEffective(t, `{storageClass: anything, postgres: {storageClass: ""}}`, cat)
		if len(ps) != 0 {
			t.Fatalf("value must not be validated: %v", problemSummary(ps))
		}
		assertValue(t, eff, `{storageClass: anything, withDefault: schema-default, postgres: {storageClass: ""}}`)
		if cat != nil {
			continue
		}
	}
}

func TestGrant_NullValueIsKept(t *testing.T) {
	eff, ps := grantEffective(t, `{storageClass: null}`, projectCatalog)
	if len(ps) != 0 || eff["storageClass"] != nil {
		t.Fatalf("eff=%v problems=%v", eff, problemSummary(ps))
	}
}

// TestGrant_BindingsCountOnlyAlongProperties: DP neither injects nor
// checks a binding under items, additionalProperties, patternProperties or a
// combinator branch.
func TestGrant_BindingsCountOnlyAlongProperties(t *testing.T) {
	schema := `
type: object
properties:
  volumes:
    type: array
    items:
      type: object
      properties:
        class: {type: string, x-deckhouse-grantable-resource: storageclasses}
  pools:
    type: object
    additionalProperties:
      type: object
      properties:
        class: {type: string, x-deckhouse-grantable-resource: storageclasses}
  named:
    type: object
    patternProperties:
      "^p":
        type: string
        x-deckhouse-grantable-resource: storageclasses
  choice:
    type: object
    properties:
      kind: {type: string}
    oneOf:
      - properties:
          class: {type: string, x-deckhouse-grantable-resource: storageclasses}
`
	doc := `{volumes: [{}, {class: gold}], pools: {a: {}, b: {class: gold}}, named: {p1: gold}, choice: {kind: x}}`
	eff, ps, ws := grantEffectiveWarn(t, schema, doc, projectCatalog)
	if len(ps) != 0 || len(ws) != 0 {
		t.Fatalf("nothing is checked: %v %v", problemSummary(ps), problemSummary(ws))
	}
	assertValue(t, eff, doc)
}

// TestGrant_BindingProblemsCountOnlyAlongProperties: an empty name or a
// binding on a field without type string breaks DP's settings processing
// only where DP collects bindings (through properties); elsewhere DP never
// looks and the package loads.
func TestGrant_BindingProblemsCountOnlyAlongProperties(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema, want string
	}{
		{"empty name on a property", "type: object\nproperties:\n  a: {type: object, properties: {sc: {type: string, x-deckhouse-grantable-resource: ''}}}\n",
			`field "a.sc": x-deckhouse-grantable-resource requires a non-empty value`},
		{"integer property", "type: object\nproperties:\n  sc: {type: integer, x-deckhouse-grantable-resource: storageclasses}\n",
			`field "sc": x-deckhouse-grantable-resource is only supported on 'type: string' fields`},
		{"nullable string property", "type: object\nproperties:\n  sc: {type: [string, 'null'], x-deckhouse-grantable-resource: storageclasses}\n", ""},
		{"type-less binding in a oneOf branch", "type: object\nproperties:\n  a: {type: object, properties: {sc: {type: string}}, oneOf: [{properties: {sc: {x-deckhouse-grantable-resource: storageclasses}}}]}\n", ""},
		{"empty name under items", "type: object\nproperties:\n  l: {type: array, items: {type: object, properties: {sc: {type: string, x-deckhouse-grantable-resource: ''}}}}\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadFS(pkgFS(map[string]string{"settings.yaml": tc.schema}))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want the package to load: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
