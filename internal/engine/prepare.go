package engine

import (
	"fmt"
	"strings"
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

// Extension names checked when loading.
const (
	extValidations  = "x-deckhouse-validations"
	extResourceName = "x-deckhouse-ui-resource-name"
)

// checkLoadExtensions rejects extension values evaluation cannot work with:
// x-deckhouse-grantable-resource that is not a string, and, on a field
// reached from the root through properties (where DP collects bindings), an
// empty name or a binding on a field whose type does not include string (DP
// fails the package's settings processing on both); and
// x-deckhouse-ui-resource-name that is not an object with string apiVersion
// and kind. A binding elsewhere (under items, additionalProperties,
// patternProperties or a combinator branch) is not looked at by DP and is
// not checked here. (x-deckhouse-validations is checked when its rules are
// compiled; other extensions of the wrong type are reported by publishing
// and Verify.)
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
	if err := c.grant(n, ptr, field, alongProps && depth > 0); err != nil {
		return err
	}
	if r, ok := n[extResourceName]; ok {
		m, isMap := r.(map[string]any)
		av, _ := m["apiVersion"].(string)
		kd, _ := m["kind"].(string)
		if !isMap || av == "" || kd == "" {
			return &SchemaError{File: c.file, SchemaPath: ptr + "/" + extResourceName, Message: extResourceName + " must be an object with string apiVersion and kind (and an optional labelSelector)"}
		}
		if ls, ok := m["labelSelector"]; ok && ls != nil {
			if _, ok := ls.(map[string]any); !ok {
				return &SchemaError{File: c.file, SchemaPath: ptr + "/" + extResourceName + "/labelSelector", Message: "labelSelector must be a label selector object"}
			}
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

// grant checks the x-deckhouse-grantable-resource of node n; counts says
// the node is a field DP collects bindings from.
func (c *extChecker) grant(n map[string]any, ptr string, field Path, counts bool) error {
	g, ok := n[extGrantable]
	if !ok {
		return nil
	}
	name, isStr := g.(string)
	at := ptr + "/" + extGrantable
	switch {
	case !isStr:
		return &SchemaError{File: c.file, SchemaPath: at, Message: fmt.Sprintf("%s must be a non-empty string naming the resource (for example storageclasses), got %s", extGrantable, describeValue(g))}
	case !counts:
		return nil
	case name == "":
		return &SchemaError{File: c.file, SchemaPath: at, Message: fmt.Sprintf("field %q: %s requires a non-empty value (must be a non-empty string naming the resource, for example storageclasses)", field.String(), extGrantable)}
	case !hasType(n, "string"):
		return &SchemaError{File: c.file, SchemaPath: at, Message: fmt.Sprintf("field %q: %s is only supported on 'type: string' fields (x-deckhouse-grantable-resource is allowed only on a field of type: string, this field has %s)", field.String(), extGrantable, describeType(n))}
	}
	return nil
}

func isStringField(n map[string]any) bool {
	ts := schemaTypes(n)
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if t != "string" && t != "null" {
			return false
		}
	}
	return true
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
	return jsonTypeName(v)
}
