package engine

import (
	"bytes"
	"encoding/json"
	"strings"
)

// publishedExtensions are the x-deckhouse-* extensions DP keeps in the
// published schemas; every other x-* key of a schema node is removed.
var publishedExtensions = map[string]bool{
	"x-deckhouse-grantable-resource":    true,
	"x-deckhouse-validations":           true,
	"x-deckhouse-immutable":             true,
	"x-deckhouse-ui-advanced":           true,
	"x-deckhouse-ui-order":              true,
	"x-deckhouse-ui-group":              true,
	"x-deckhouse-ui-validation-message": true,
	"x-deckhouse-ui-resource-name":      true,
	"x-deckhouse-enum-switch-settings":  true,
}

// publish returns the published form of a loaded schema (before $ref
// resolution, x-extend merge or closing) as canonical JSON: sorted keys,
// no HTML escaping, stable bytes.
func publish(raw map[string]any) ([]byte, error) {
	return canonicalJSON(publishNode(raw))
}

// publishNode filters one schema node. Only keys in schema positions are
// keywords: a property named x-foo inside properties, and anything inside
// default, enum, example or an extension's value, is data and kept.
func publishNode(n map[string]any) map[string]any {
	out := make(map[string]any, len(n))
	for k, v := range n {
		if strings.HasPrefix(k, "x-") && !publishedExtensions[k] {
			continue
		}
		out[k] = publishChild(k, v)
	}
	return out
}

func publishChild(k string, v any) any {
	switch k {
	case "properties", "patternProperties", "definitions", "dependencies":
		if m, ok := v.(map[string]any); ok {
			cp := make(map[string]any, len(m))
			for name, sub := range m {
				if sm, ok := sub.(map[string]any); ok {
					cp[name] = publishNode(sm)
				} else {
					cp[name] = sub
				}
			}
			return cp
		}
	case "items", "allOf", "anyOf", "oneOf":
		if l, ok := v.([]any); ok {
			cp := make([]any, len(l))
			for i, e := range l {
				if sm, ok := e.(map[string]any); ok {
					cp[i] = publishNode(sm)
				} else {
					cp[i] = e
				}
			}
			return cp
		}
		if sm, ok := v.(map[string]any); ok {
			return publishNode(sm)
		}
	case "additionalProperties", "additionalItems", "not":
		if sm, ok := v.(map[string]any); ok {
			return publishNode(sm)
		}
	}
	return v
}

// canonicalJSON renders v with sorted object keys and without HTML escaping.
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
