package engine

import "testing"

func TestSchemaNode_EntryFollowsPropertiesPatternsThenAdditional(t *testing.T) {
	n := nodeOf(yamlTree(t, `
properties:
  a: {type: string}
  flag: true
patternProperties:
  "^x-": {type: integer}
  "^x-y": {type: boolean}
additionalProperties: {type: object}
`))
	if got := n.entry("a"); got == nil || got != n.property("a") {
		t.Fatalf("entry(a) = %v", got)
	}
	if got := n.entry("flag"); got != nil {
		t.Fatalf("a declared property whose schema is not an object governs nothing, got %v", got)
	}
	if got := n.entry("x-yz"); got == nil || got.raw["type"] != "integer" {
		t.Fatalf("the first pattern in sorted order wins, got %v", got)
	}
	if got := n.entry("other"); got != n.additional || got == nil {
		t.Fatalf("entry(other) = %v", got)
	}
}

func TestSchemaNode_ElementOfTupleThenAdditionalItems(t *testing.T) {
	n := nodeOf(yamlTree(t, `{items: [{type: string}, true], additionalItems: {type: integer}}`))
	if n.element(0) == nil || n.element(1) != nil || n.element(2) != n.additionalItems || n.additionalItems == nil {
		t.Fatalf("elements: %v %v %v", n.element(0), n.element(1), n.element(2))
	}
	one := nodeOf(yamlTree(t, `{items: {type: string}}`))
	if one.element(5) != one.items || one.items == nil {
		t.Fatal("items as one schema governs every element")
	}
}

func TestSchemaNode_RulesBelowAdditionalItemsAreNotCompiled(t *testing.T) {
	n, err := buildSchemaNode("openapi/settings.yaml", yamlTree(t, `
items: [{type: string}]
additionalItems:
  x-deckhouse-validations:
  - {expression: ")", message: m}
`))
	if err != nil || n.hasRules {
		t.Fatalf("node %+v, err %v", n, err)
	}
}

func TestSchemaNode_MayHoldImmutable(t *testing.T) {
	n := nodeOf(yamlTree(t, `{properties: {a: {properties: {b: {x-deckhouse-immutable: true}}}, c: {type: string}}}`))
	if !n.mayHoldImmutable() || !n.property("a").mayHoldImmutable() || n.property("c").mayHoldImmutable() {
		t.Fatal("immutable subtree not found")
	}
	// A schema deeper than the search bound counts as holding one.
	tree := map[string]any{"type": "string"}
	for range maxImmutableSearch + 1 {
		tree = map[string]any{"items": tree}
	}
	if !nodeOf(tree).mayHoldImmutable() {
		t.Fatal("a very deep schema must count as holding an immutable field")
	}
}
