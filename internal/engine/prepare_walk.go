package engine

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Schema keywords whose values are sub-schemas, by shape. Everything else
// (default, enum, example, x-* extensions, ...) is data.
var (
	schemaMapKeywords   = []string{"properties", "patternProperties", "definitions"}
	schemaOneKeywords   = []string{"additionalProperties", "additionalItems", "not"}
	schemaListKeywords  = []string{"allOf", "anyOf", "oneOf"}
	combinatorKeywords  = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "not": true}
	schemaItemsKeywords = "items"
)

// eachSubschema calls fn for every direct sub-schema of node, in a stable
// order, with the keyword and the JSON-pointer suffix leading to it (for
// example "/properties/foo"). Only map sub-schemas are visited (boolean
// schemas such as additionalProperties: false have no children).
func eachSubschema(node map[string]any, order keyOrder, fn func(keyword, ptr string, child map[string]any)) {
	for _, kw := range schemaMapKeywords {
		m, ok := node[kw].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range order.keys(m) {
			if c, ok := m[k].(map[string]any); ok {
				fn(kw, "/"+kw+"/"+escapePointer(k), c)
			}
		}
	}
	switch it := node[schemaItemsKeywords].(type) {
	case map[string]any:
		fn("items", "/items", it)
	case []any:
		for i, e := range it {
			if c, ok := e.(map[string]any); ok {
				fn("items", "/items/"+strconv.Itoa(i), c)
			}
		}
	}
	for _, kw := range schemaOneKeywords {
		if c, ok := node[kw].(map[string]any); ok {
			fn(kw, "/"+kw, c)
		}
	}
	for _, kw := range schemaListKeywords {
		l, ok := node[kw].([]any)
		if !ok {
			continue
		}
		for i, e := range l {
			if c, ok := e.(map[string]any); ok {
				fn(kw, "/"+kw+"/"+strconv.Itoa(i), c)
			}
		}
	}
	if deps, ok := node["dependencies"].(map[string]any); ok {
		for _, k := range order.keys(deps) {
			if c, ok := deps[k].(map[string]any); ok {
				fn("dependencies", "/dependencies/"+escapePointer(k), c)
			}
		}
	}
}

// copyTree copies a JSON data-model value, carrying key order along.
func copyTree(v any, order keyOrder) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyTree(e, order)
		}
		order.copyTo(x, out)
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyTree(e, order)
		}
		return out
	}
	return v
}

// schemaTypes returns the declared type(s) of a schema node.
func schemaTypes(node map[string]any) []string {
	switch t := node["type"].(type) {
	case string:
		return []string{t}
	case []any:
		return stringsIn(t)
	}
	return nil
}

// stringsIn are the strings of a JSON array, the other values left out.
func stringsIn(l []any) []string {
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func hasType(node map[string]any, want string) bool {
	return slices.Contains(schemaTypes(node), want)
}

// sortedKeys returns the keys of m in lexical order, so every walk (and so
// every list of problems before the final sort) is deterministic.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func escapePointer(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}
