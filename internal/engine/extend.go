package engine

import "fmt"

// applyExtend merges the settings schema into a values schema that carries
// `x-extend: {schema: settings.yaml}`: a shallow merge of the two roots in
// which the values schema (the child) wins on a name clash; properties,
// patternProperties and definitions are unioned (child wins per name);
// required is the de-duplicated union (parent's first); title and
// description fall back to the parent's; root extensions are unioned like
// any other root key. Both inputs are $ref-resolved trees; neither is
// modified. Without x-extend, values is returned as is.
func applyExtend(file string, values, settings map[string]any, settingsFile string, order keyOrder) (map[string]any, error) {
	ext, ok := values["x-extend"]
	if !ok {
		return values, nil
	}
	em, ok := ext.(map[string]any)
	if !ok {
		return nil, &SchemaError{File: file, SchemaPath: "/x-extend", Message: fmt.Sprintf("x-extend must be an object {schema: settings.yaml}, got %s", jsonTypeName(ext))}
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
	keys := append([]string(nil), order.keys(settings)...)
	for k, v := range settings {
		out[k] = v
	}
	for _, k := range order.keys(values) {
		if k == "x-extend" {
			continue
		}
		if _, ok := out[k]; !ok {
			keys = append(keys, k)
		}
		out[k] = values[k]
	}
	for _, kw := range []string{"properties", "patternProperties", "definitions"} {
		pm, pok := settings[kw].(map[string]any)
		cm, cok := values[kw].(map[string]any)
		if !pok || !cok {
			continue
		}
		u := make(map[string]any, len(pm)+len(cm))
		uk := append([]string(nil), order.keys(pm)...)
		for k, v := range pm {
			u[k] = v
		}
		for _, k := range order.keys(cm) {
			if _, ok := u[k]; !ok {
				uk = append(uk, k)
			}
			u[k] = cm[k]
		}
		order.set(u, uk)
		out[kw] = u
	}
	pr, pok := settings["required"].([]any)
	cr, cok := values["required"].([]any)
	if pok && cok {
		seen := map[any]bool{}
		var u []any
		for _, r := range append(append([]any(nil), pr...), cr...) {
			if !seen[r] {
				seen[r] = true
				u = append(u, r)
			}
		}
		out["required"] = u
	}
	order.set(out, keys)
	return out, nil
}
