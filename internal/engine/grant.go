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

// grantWalk injects project defaults into the effective settings and
// checks the values the user gave against the project's catalog.
type grantWalk struct {
	cat Catalog
	out *[]*Problem // a problem for every unavailable user value
}

// walk follows node n over the effective settings eff (changed in place)
// and the raw user settings raw at path.
func (w *grantWalk) walk(n *schemaNode, eff, raw any, path Path) {
	if n == nil || len(path) > maxValueDepth {
		return
	}
	switch x := eff.(type) {
	case map[string]any:
		rm, _ := raw.(map[string]any)
		for k := range x {
			ps := n.entry(k)
			if ps == nil {
				continue
			}
			w.field(ps, x, k, rm, path.Key(k))
		}
		// Bound fields missing from the effective settings: inject.
		for _, k := range n.propNames {
			if _, has := x[k]; has {
				continue
			}
			if ps := n.props[k]; ps != nil {
				w.field(ps, x, k, rm, path.Key(k))
			}
		}
	case []any:
		rl, _ := raw.([]any)
		for i, e := range x {
			var re any
			if i < len(rl) {
				re = rl[i]
			}
			w.walk(n.element(i), e, re, path.Index(i))
		}
	}
}

// field handles key k of the object parent, governed by node ps.
func (w *grantWalk) field(ps *schemaNode, parent map[string]any, k string, raw map[string]any, path Path) {
	name := ps.grantable
	if name == "" {
		if v, has := parent[k]; has {
			var rv any
			if raw != nil {
				rv = raw[k]
			}
			w.walk(ps, v, rv, path)
		}
		return
	}
	c, ok := w.cat[name]
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
	*w.out = append(*w.out, &Problem{
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
