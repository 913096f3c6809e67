package engine

import (
	"fmt"
	"maps"
	"strings"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// applyExtend merges the settings schema into a values schema that carries
// `x-extend: {schema: settings.yaml}`, as DP's extend transformer does: only
// properties, patternProperties and definitions (unioned, values win per
// name), root extensions x-* (unioned, values win), required (the
// de-duplicated union, settings' first) and title and description (the
// settings' when the values schema has none) come from the settings root.
// Every other keyword of the settings root (type, oneOf, anyOf, allOf, not,
// enum, minProperties, ...) stays out of the values schema. Both inputs are
// $ref-resolved trees; neither is modified. Without x-extend, values is
// returned as is.
func applyExtend(file string, values, settings map[string]any, settingsFile string, order keyOrder) (map[string]any, error) {
	ext, ok := values["x-extend"]
	if !ok {
		return values, nil
	}
	em, ok := ext.(map[string]any)
	if !ok {
		return nil, &SchemaError{File: file, SchemaPath: "/x-extend", Message: fmt.Sprintf("x-extend must be an object {schema: settings.yaml}, got %s", jsonvalue.TypeName(ext))}
	}
	target, ok := em["schema"].(string)
	if !ok {
		return nil, &SchemaError{File: file, SchemaPath: "/x-extend/schema", Message: "x-extend.schema must name the settings schema file (settings.yaml)"}
	}
	if target != "settings.yaml" && target != "config-values.yaml" {
		return nil, &SchemaError{File: file, SchemaPath: "/x-extend/schema", Message: fmt.Sprintf("x-extend.schema %q is not the settings schema (settings.yaml or config-values.yaml)", target)}
	}
	if settings == nil {
		return nil, &SchemaError{File: file, SchemaPath: "/x-extend/schema", Message: fmt.Sprintf("x-extend.schema names %q but the package has no settings schema", target)}
	}
	_ = settingsFile // the settings schema actually used is the target, whatever its file name

	out := make(map[string]any, len(values)+len(settings))
	var keys []string
	for _, k := range order.keys(values) {
		if k == "x-extend" {
			continue
		}
		out[k] = values[k]
		keys = append(keys, k)
	}
	take := func(k string, v any) {
		if _, ok := out[k]; !ok {
			keys = append(keys, k)
		}
		out[k] = v
	}
	for _, k := range order.keys(settings) {
		if _, own := values[k]; !own && strings.HasPrefix(k, "x-") && k != "x-extend" {
			take(k, settings[k]) // extensions: unioned, values win
		}
	}
	for _, kw := range []string{"properties", "patternProperties", "definitions"} {
		pm, pok := settings[kw].(map[string]any)
		if !pok {
			continue
		}
		cm, _ := values[kw].(map[string]any)
		u := make(map[string]any, len(pm)+len(cm))
		uk := append([]string(nil), order.keys(pm)...)
		maps.Copy(u, pm)
		for _, k := range order.keys(cm) {
			if _, ok := u[k]; !ok {
				uk = append(uk, k)
			}
			u[k] = cm[k]
		}
		order.set(u, uk)
		take(kw, u)
	}
	if pr, ok := settings["required"].([]any); ok {
		cr, _ := values["required"].([]any)
		seen := map[any]bool{}
		u := []any{}
		for _, r := range append(append([]any(nil), pr...), cr...) {
			if !seen[r] {
				seen[r] = true
				u = append(u, r)
			}
		}
		take("required", u)
	}
	for _, kw := range []string{"title", "description"} {
		if v, _ := values[kw].(string); v == "" {
			if pv, ok := settings[kw].(string); ok && pv != "" {
				take(kw, pv)
			}
		}
	}
	order.set(out, keys)
	return out, nil
}
