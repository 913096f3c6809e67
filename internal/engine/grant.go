package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Grantable resources (x-deckhouse-grantable-resource: <name>), as DP's
// controller applies them:
//   - a binding counts only on a field reached from the root through
//     properties (never under items, additionalProperties,
//     patternProperties or combinator branches: there DP neither injects nor
//     checks);
//   - injection comes after the settings.yaml defaults: the project default
//     fills the field only where it is still absent or "" (so a default on
//     the bound field in settings.yaml wins over the project default, and a
//     user "" is filled), and missing parent objects are created;
//   - a non-empty string the user gave must be one of the available names
//     when the catalog names a project default. A catalog without a default
//     checks nothing (the specification); a value outside its available
//     names is a warning, since DP's code rejects it.
//
// Without a catalog for the name nothing is injected and nothing is checked.

// grantPath is one binding: the path of the bound field (object keys only)
// and the resource name.
type grantPath struct {
	path     Path
	resource string
}

// grantCollector lists the bindings reached from a node through
// properties, in sorted order; onPath holds the nodes of the current path,
// so a recursive schema is followed once around each cycle.
type grantCollector struct {
	onPath map[*schemaNode]bool
	out    *[]grantPath
}

func (g *grantCollector) collect(n *schemaNode, path Path) {
	if n == nil || g.onPath[n] || len(path) > maxGrantDepth {
		return
	}
	g.onPath[n] = true
	defer delete(g.onPath, n)
	for _, k := range n.propNames {
		c := n.props[k]
		if c == nil {
			continue
		}
		p := path.Key(k)
		if c.grantable != "" {
			*g.out = append(*g.out, grantPath{path: p, resource: c.grantable})
		}
		g.collect(c, p)
	}
}

// maxGrantDepth bounds how deep bindings are looked for.
const maxGrantDepth = 64

// grantPaths returns the bindings of the root node n (computed once when
// the package is compiled).
func (n *schemaNode) grantPaths() []grantPath {
	if n == nil {
		return nil
	}
	return n.grants
}

// grantRun injects project defaults into the effective settings and
// checks the values the user gave against the project's catalog.
type grantRun struct {
	cat      Catalog
	problems *[]*Problem // an unavailable value where the catalog has a default
	warnings *[]*Problem // an unavailable value where the catalog has none
}

// apply handles every binding of root over the effective settings eff
// (changed in place) and the raw user settings raw.
func (g *grantRun) apply(root *schemaNode, eff, raw map[string]any) {
	for _, b := range root.grantPaths() {
		c, ok := g.cat[b.resource]
		if !ok {
			continue
		}
		if c.Default != "" && emptyAt(eff, b.path) {
			setAt(eff, b.path, c.Default)
		}
		uv, given := lookupKeys(raw, b.path)
		us, isString := uv.(string)
		if !given || !isString || us == "" || slices.Contains(c.Available, us) {
			continue
		}
		p := &Problem{Document: DocSettings, Path: b.path, Kind: KindGrant, Message: grantMessage(b.path, b.resource, c.Available), Rule: extGrantable}
		if c.Default == "" {
			p.Message += "; the project names no default for this resource, so the plan accepts the value, but DP's controller rejects it"
			*g.warnings = append(*g.warnings, p)
			continue
		}
		*g.problems = append(*g.problems, p)
	}
}

// lookupKeys returns the value at path (object keys only) and whether it
// is present.
func lookupKeys(doc map[string]any, path Path) (any, bool) {
	var cur any = doc
	for _, seg := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg.Key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// setAt sets the value at path (object keys only), creating missing parent
// objects; it is called only where emptyAt holds, so no parent on the way
// is a non-object.
func setAt(doc map[string]any, path Path, v any) {
	cur := doc
	for i, seg := range path {
		if i == len(path)-1 {
			cur[seg.Key] = v
			return
		}
		next, ok := cur[seg.Key].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[seg.Key] = next
		}
		cur = next
	}
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
