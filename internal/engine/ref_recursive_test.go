package engine

import (
	"fmt"
	"testing"
)

// recursiveSchema is shaped like a real package: a tree of menu items whose
// children are menu items, a root reference, and rules, defaults and marks
// inside the recursive definition.
const recursiveSchema = `
type: object
definitions:
  item:
    type: object
    properties:
      name: {type: string, x-deckhouse-immutable: true}
      weight:
        type: integer
        default: 1
        x-deckhouse-validations:
          - expression: "self >= 0"
            message: "weight must not be negative"
      children:
        type: array
        items: {$ref: '#/definitions/item'}
properties:
  menu: {$ref: '#/definitions/item'}
  copy:
    type: object
    properties:
      again: {$ref: '#'}
`

// TestRef_RecursiveRefLoadsAndValidates: a definition that refers to itself
// loads (as in DP) and every level of a value is validated, defaulted,
// checked by rules and compared for immutability, without the schema being
// expanded without end.
func TestRef_RecursiveRefLoadsAndValidates(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, recursiveSchema, "")
	deep := `{menu: {name: a, children: [{name: b, children: [{name: c, weight: -1, extra: x}]}]}}`
	res := p.Evaluate(Request{Settings: yamlValue(t, deep)})
	got := kindSummary(res.Problems)
	want := []string{"settings undeclared menu.children[0].children[0].extra", "settings cel menu.children[0].children[0].weight: weight must not be negative"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	ok := p.Evaluate(Request{Settings: yamlValue(t, `{menu: {name: a, children: [{name: b}]}, copy: {again: {menu: {name: z}}}}`)})
	if !ok.OK() {
		t.Fatal(kindSummary(ok.Problems))
	}
	assertValue(t, ok.Effective, `{menu: {name: a, weight: 1, children: [{name: b, weight: 1}]}, copy: {again: {menu: {name: z, weight: 1}}}}`)
	upd := p.Evaluate(Request{Settings: yamlValue(t, `{menu: {name: a, children: [{name: x}]}}`),
		Previous: yamlValue(t, `{menu: {name: a, children: [{name: b}]}}`), HasPrevious: true})
	if got := kindSummary(upd.Problems); fmt.Sprint(got) != fmt.Sprint([]string{"settings immutable menu.children[0].name"}) {
		t.Fatalf("update: %q", got)
	}
	if fs := p.Fields(); len(fs) == 0 || len(fs) > 50 {
		t.Fatalf("fields of a recursive schema: %d", len(fs))
	}
}

// TestRef_RecursiveRefIsNotExpanded: a definition that recurs through two
// children (a binary tree) with rules below loads quickly, lists its fields
// once around the cycle, and an Unknown value inside it skips the checks of
// its subtree without walking the schema without end.
func TestRef_RecursiveRefIsNotExpanded(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, `
type: object
definitions:
  node:
    type: object
    properties:
      value:
        type: integer
        x-deckhouse-validations: [{expression: "self >= 0", message: "negative"}]
      left: {$ref: '#/definitions/node'}
      right: {$ref: '#/definitions/node'}
properties:
  tree: {$ref: '#/definitions/node'}
`, "")
	if n := len(p.Fields()); n > 64 {
		t.Fatalf("%d fields listed for a recursive schema", n)
	}
	res := p.Evaluate(Request{Settings: map[string]any{"tree": map[string]any{"value": int64(1), "left": Unknown{}, "right": map[string]any{"value": int64(-1)}}}})
	if got := fmt.Sprint(kindSummary(res.Problems)); got != "[settings cel tree.right.value: negative]" {
		t.Fatalf("problems %s", got)
	}
	if len(res.Skipped) == 0 {
		t.Fatal("the rules below the unknown subtree are not listed as skipped")
	}
}
