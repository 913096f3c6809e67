package engine

import "testing"

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
	tree := yamlTree(t, grantSchema)
	user := yamlTree(t, doc)
	eff := effectiveWithDefaults(tree, user)
	var ps []*Problem
	applyGrants(tree, eff, user, cat, nil, 0, &ps)
	return eff, ps
}

var projectCatalog = Catalog{
	"storageclasses":  {Default: "fast", Available: []string{"fast", "slow"}},
	"postgresclasses": {Default: "pg-ssd", Available: []string{"pg-ssd"}},
}

func TestGrant_MissingValueGetsProjectDefault(t *testing.T) {
	eff, ps := grantEffective(t, `{}`, projectCatalog)
	if len(ps) != 0 {
		t.Fatal(problemSummary(ps))
	}
	// postgres does not exist: nothing is injected below it.
	assertValue(t, eff, `{storageClass: fast, withDefault: fast}`)
}

func TestGrant_InjectedOnlyWhereParentExists(t *testing.T) {
	eff, _ := grantEffective(t, `{postgres: {}}`, projectCatalog)
	assertValue(t, eff, `{storageClass: fast, withDefault: fast, postgres: {storageClass: pg-ssd}}`)
}

func TestGrant_EmptyStringGetsProjectDefault(t *testing.T) {
	eff, ps := grantEffective(t, `{storageClass: ""}`, projectCatalog)
	if len(ps) != 0 {
		t.Fatal(problemSummary(ps))
	}
	assertValue(t, eff, `{storageClass: fast, withDefault: fast}`)
}

func TestGrant_ProjectDefaultOverridesSchemaDefault(t *testing.T) {
	eff, _ := grantEffective(t, `{}`, projectCatalog)
	if eff["withDefault"] != "fast" {
		t.Fatalf("withDefault = %v, want the project default", eff["withDefault"])
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
	eff, ps := grantEffective(t, `{storageClass: gold}`, cat)
	if len(ps) != 0 {
		t.Fatalf("value must not be validated: %v", problemSummary(ps))
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
	}
}

func TestGrant_NullValueIsKept(t *testing.T) {
	eff, ps := grantEffective(t, `{storageClass: null}`, projectCatalog)
	if len(ps) != 0 || eff["storageClass"] != nil {
		t.Fatalf("eff=%v problems=%v", eff, problemSummary(ps))
	}
}

func TestGrant_FieldsInsideArrayItems(t *testing.T) {
	tree := yamlTree(t, `
type: object
properties:
  volumes:
    type: array
    items:
      type: object
      properties:
        class: {type: string, x-deckhouse-grantable-resource: storageclasses}
`)
	user := yamlTree(t, `{volumes: [{}, {class: slow}, {class: gold}]}`)
	eff := effectiveWithDefaults(tree, user)
	var ps []*Problem
	applyGrants(tree, eff, user, projectCatalog, nil, 0, &ps)
	assertValue(t, eff, `{volumes: [{class: fast}, {class: slow}, {class: gold}]}`)
	if len(ps) != 1 || ps[0].Path.String() != "volumes[2].class" {
		t.Fatalf("got %v", problemSummary(ps))
	}
}
