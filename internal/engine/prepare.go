package engine

import (
	"fmt"
	"strings"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// closeObjects adds `additionalProperties: false` to every object schema
// of tree (type: object, or no type and properties present) that does not
// set additionalProperties itself, recursively through properties, items,
// additionalProperties and patternProperties sub-schemas and definitions.
// Combinator branches (oneOf, anyOf, allOf, not) are not closed and not
// descended into: a field declared only in a branch is then rejected by
// the closed parent, and branches only restrict combinations of values.
// tree is modified in place: callers pass a copy.
func closeObjects(tree map[string]any, order keyOrder) {
	if isObjectSchema(tree) {
		if _, ok := tree["additionalProperties"]; !ok {
			tree["additionalProperties"] = false
		}
	}
	eachSubschema(tree, order, func(kw, _ string, child map[string]any) {
		if combinatorKeywords[kw] || kw == "dependencies" {
			return
		}
		closeObjects(child, order)
	})
}

// isObjectSchema reports whether node describes an object.
func isObjectSchema(node map[string]any) bool {
	if _, ok := node["type"]; ok {
		return hasType(node, "object")
	}
	_, ok := node["properties"]
	return ok
}

// checkLoadExtensions rejects the extension values evaluation cannot work
// with: those of the table's entries that load, each refused by its check
// (see extensions.go): an x-deckhouse-grantable-resource that is not a
// string, and, on a field reached from the root through properties (where DP
// collects bindings), an empty name or a binding on a field whose type does
// not include string (DP fails the package's settings processing on both);
// an x-deckhouse-ui-resource-name that is not an object with string
// apiVersion and kind. (x-deckhouse-validations is checked when its rules
// are compiled; other extensions of the wrong type are refused by
// publishing.)
func checkLoadExtensions(file string, tree map[string]any, order keyOrder) error {
	c := &extChecker{file: file, order: order}
	return c.walk(tree, "", nil, 0, true)
}

// extChecker is one pass of checkLoadExtensions over a file.
type extChecker struct {
	file  string
	order keyOrder
}

// walk checks node n at schema pointer ptr; field is its path of property
// names and alongProps says it is reached from the root through properties.
func (c *extChecker) walk(n map[string]any, ptr string, field Path, depth int, alongProps bool) error {
	if depth > maxDepth {
		return &SchemaError{File: c.file, SchemaPath: ptr, Message: "schema nesting is too deep"}
	}
	site := extSite{node: n, field: field, alongProps: alongProps && depth > 0}
	for _, e := range extensions {
		val, has := n[e.name]
		if !has || !e.loads {
			continue
		}
		if at, msg := e.check(val, site); msg != "" {
			return &SchemaError{File: c.file, SchemaPath: ptr + "/" + e.name + at, Message: extensionMessage(e.name, at, msg)}
		}
	}
	var err error
	eachSubschema(n, c.order, func(kw string, sub string, child map[string]any) {
		if err != nil {
			return
		}
		childField := field
		if kw == "properties" {
			childField = field.Key(unescapePointer(sub[len("/properties/"):]))
		}
		err = c.walk(child, ptr+sub, childField, depth+1, alongProps && kw == "properties")
	})
	return err
}

func describeType(n map[string]any) string {
	ts := schemaTypes(n)
	if len(ts) == 0 {
		return "no type"
	}
	return "type: " + strings.Join(ts, ", ")
}

func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return jsonvalue.TypeName(v)
}
