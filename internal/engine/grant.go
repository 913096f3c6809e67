package engine

import (
	"fmt"
	"strings"
)

// Grantable resources (x-deckhouse-grantable-resource: <name>).
//
// For a bound field whose catalog exists and names a project default:
//   - a value the user left missing or empty ("") gets the default injected,
//     wherever the field's parent object exists in the effective settings
//     (source 2: it overrides a settings.yaml default, never a user value);
//   - a non-empty value the user gave must be one of the available names.
//
// Without a catalog for the name, or with a catalog that has no default, the
// field is left unchanged: nothing is injected and nothing is checked.

const extGrantable = "x-deckhouse-grantable-resource"

// applyGrants walks the schema over the effective settings eff (changed in
// place) and the raw user settings raw, injecting project defaults and
// returning a problem for every unavailable user value.
func applyGrants(s map[string]any, eff, raw any, cat Catalog, path Path, depth int, out *[]*Problem) {
	if s == nil || depth > maxValueDepth {
		return
	}
	switch x := eff.(type) {
	case map[string]any:
		rm, _ := raw.(map[string]any)
		for k := range x {
			ps := entrySchema(s, k)
			if ps == nil {
				continue
			}
			applyGrantField(ps, x, k, rm, cat, path.Key(k), depth, out)
		}
		// Bound fields missing from the effective settings: inject.
		if props := schemaMap(s["properties"]); props != nil {
			for k, pv := range props {
				if _, has := x[k]; has {
					continue
				}
				if ps := schemaMap(pv); ps != nil {
					applyGrantField(ps, x, k, rm, cat, path.Key(k), depth, out)
				}
			}
		}
	case []any:
		rl, _ := raw.([]any)
		for i, e := range x {
			var re any
			if i < len(rl) {
				re = rl[i]
			}
			applyGrants(itemSchema(s, i), e, re, cat, path.Index(i), depth+1, out)
		}
	}
}

func applyGrantField(ps map[string]any, parent map[string]any, k string, raw map[string]any, cat Catalog, path Path, depth int, out *[]*Problem) {
	name, bound := ps[extGrantable].(string)
	if !bound || name == "" {
		if v, has := parent[k]; has {
			var rv any
			if raw != nil {
				rv = raw[k]
			}
			applyGrants(ps, v, rv, cat, path, depth+1, out)
		}
		return
	}
	c, ok := cat[name]
	if !ok || c.Default == "" {
		return
	}
	uv, given := raw[k]
	if us, isString := uv.(string); !given || (isString && us == "") {
		parent[k] = c.Default
		return
	}
	us, isString := uv.(string)
	if !isString {
		return // the schema reports a non-string value
	}
	for _, a := range c.Available {
		if a == us {
			return
		}
	}
	avail := c.Available
	*out = append(*out, &Problem{
		Document: DocSettings,
		Path:     path,
		Kind:     KindGrant,
		Message:  grantMessage(path, name, avail),
		Rule:     extGrantable,
	})
}

// grantMessage is DP's text without the value the user gave (it may be a
// secret); the catalog's names are not secret and are listed.
func grantMessage(path Path, resource string, available []string) string {
	list := "none"
	if len(available) > 0 {
		list = strings.Join(available, ", ")
	}
	return fmt.Sprintf("field %q: the value is not available to this project for resource %q (available: %s)", path.String(), resource, list)
}
