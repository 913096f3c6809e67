package engine

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// This file holds the navigation helpers every semantic walker (defaults,
// grants, immutability, switches, fields) shares: given a prepared schema
// node, which sub-schema governs a property, an array element or a map entry.

// schemaMap returns v as a schema node, or nil.
func schemaMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// propertySchema returns the schema of the declared property k, or nil.
func propertySchema(s map[string]any, k string) map[string]any {
	props := schemaMap(s["properties"])
	if props == nil {
		return nil
	}
	return schemaMap(props[k])
}

// entrySchema returns the schema that governs key k of an object value: the
// declared property, else the first matching patternProperties schema (in
// sorted pattern order), else the additionalProperties schema. nil when none
// (an undeclared key, or additionalProperties: true/false).
func entrySchema(s map[string]any, k string) map[string]any {
	if ps := propertySchema(s, k); ps != nil {
		return ps
	}
	if pp := schemaMap(s["patternProperties"]); len(pp) > 0 {
		pats := make([]string, 0, len(pp))
		for p := range pp {
			pats = append(pats, p)
		}
		sort.Strings(pats)
		for _, p := range pats {
			if re := compilePattern(p); re != nil && re.MatchString(k) {
				return schemaMap(pp[p])
			}
		}
	}
	if props := schemaMap(s["properties"]); props != nil {
		if _, declared := props[k]; declared {
			return nil
		}
	}
	return schemaMap(s["additionalProperties"])
}

// itemSchema returns the schema of element i of an array value: items as one
// schema, or the i-th schema of a tuple-form items list (then additionalItems).
func itemSchema(s map[string]any, i int) map[string]any {
	switch it := s["items"].(type) {
	case map[string]any:
		return it
	case []any:
		if i < len(it) {
			return schemaMap(it[i])
		}
		return schemaMap(s["additionalItems"])
	}
	return nil
}

var patternCache sync.Map // string -> *regexp.Regexp (nil stored as a typed nil when invalid)

// compilePattern compiles a patternProperties key once per process. An
// invalid pattern (the schema compiler reports it) matches nothing here.
func compilePattern(p string) *regexp.Regexp {
	if v, ok := patternCache.Load(p); ok {
		re, _ := v.(*regexp.Regexp)
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	patternCache.Store(p, re)
	return re
}

// sortedKeys returns the keys of m in lexical order, so every walk (and so
// every list of problems before the final sort) is deterministic.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func escapePointer(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int64, int:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
