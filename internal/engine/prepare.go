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
// x-deckhouse-grantable-resource that is not a non-empty string or sits on a
// field that is not `type: string`, and x-deckhouse-ui-resource-name that is
// not an object with string apiVersion and kind. (x-deckhouse-validations is
// checked when its rules are compiled; other extensions of the wrong type are
// ignored by evaluation and reported by Verify.)
func checkLoadExtensions(file string, tree map[string]any, order keyOrder) error {
	var walk func(n map[string]any, ptr string, depth int) error
	walk = func(n map[string]any, ptr string, depth int) error {
		if depth > maxDepth {
			return &SchemaError{File: file, SchemaPath: ptr, Message: "schema nesting is too deep"}
		}
		if g, ok := n[extGrantable]; ok {
			s, isStr := g.(string)
			if !isStr || strings.TrimSpace(s) == "" {
				return &SchemaError{File: file, SchemaPath: ptr + "/" + extGrantable, Message: fmt.Sprintf("%s must be a non-empty string naming the resource (for example storageclasses), got %s", extGrantable, describeValue(g))}
			}
			if !isStringField(n) {
				return &SchemaError{File: file, SchemaPath: ptr + "/" + extGrantable, Message: fmt.Sprintf("%s is allowed only on a field of type: string, this field has %s", extGrantable, describeType(n))}
			}
		}
		if r, ok := n[extResourceName]; ok {
			m, isMap := r.(map[string]any)
			av, _ := m["apiVersion"].(string)
			kd, _ := m["kind"].(string)
			if !isMap || av == "" || kd == "" {
				return &SchemaError{File: file, SchemaPath: ptr + "/" + extResourceName, Message: extResourceName + " must be an object with string apiVersion and kind (and an optional labelSelector)"}
			}
			if ls, ok := m["labelSelector"]; ok && ls != nil {
				if _, ok := ls.(map[string]any); !ok {
					return &SchemaError{File: file, SchemaPath: ptr + "/" + extResourceName + "/labelSelector", Message: "labelSelector must be a label selector object"}
				}
			}
		}
		var err error
		eachSubschema(n, order, func(_ string, sub string, child map[string]any) {
			if err == nil {
				err = walk(child, ptr+sub, depth+1)
			}
		})
		return err
	}
	return walk(tree, "", 0)
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
