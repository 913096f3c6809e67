package engine

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// maxInlinedNodes bounds the size of a tree after $ref inlining, so a
// schema whose references fan out exponentially fails instead of
// exhausting memory.
const maxInlinedNodes = 200_000

// resolveRefs returns a copy of root in which every local $ref
// (#/definitions/..., any #/ JSON pointer) is replaced by a copy of its
// (resolved) target. Keywords beside a $ref are laid over the target, so
// an x-deckhouse-* extension or a description next to a $ref is kept.
// A recursive reference stays in place (see recursiveRef); a cycle of
// nothing but $refs, dangling and non-local references are errors naming the ref and
// where it appears.
func resolveRefs(file string, root map[string]any, order keyOrder) (map[string]any, error) {
	r := &refResolver{file: file, root: root, order: order, active: map[string]bool{}, memo: map[string]resolvedRef{}}
	out, err := r.node(root, "", 0)
	if err != nil {
		return nil, err
	}
	m, _ := out.(map[string]any)
	return m, nil
}

type refResolver struct {
	file   string
	root   map[string]any
	order  keyOrder
	active map[string]bool        // refs being expanded (cycle detection)
	nodes  int                    // schema nodes of the result, counting every inlined copy
	memo   map[string]resolvedRef // resolved targets, shared until the tree is copied
}

type resolvedRef struct {
	node  map[string]any
	nodes int
}

func (r *refResolver) errf(path, format string, args ...any) error {
	return &SchemaError{File: r.file, SchemaPath: path, Message: fmt.Sprintf(format, args...)}
}

// node resolves a schema node at ptr.
func (r *refResolver) node(n map[string]any, ptr string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, r.errf(ptr, "schema nesting deeper than %d levels (through $ref)", maxDepth)
	}
	r.nodes++
	if r.nodes > maxInlinedNodes {
		return nil, r.errf(ptr, "schema grows beyond %d nodes when $refs are inlined", maxInlinedNodes)
	}
	if ref, ok := n["$ref"]; ok {
		s, ok := ref.(string)
		if !ok {
			return nil, r.errf(ptr+"/$ref", "$ref must be a string, got %s", jsonvalue.TypeName(ref))
		}
		if !strings.HasPrefix(s, "#") {
			return nil, r.errf(ptr, "$ref %q is not local: only references inside the same file (#/...) are supported", s)
		}
		target, err := lookupPointer(r.root, s[1:])
		if err != nil {
			return nil, r.errf(ptr, "$ref %q is dangling: %v", s, err)
		}
		tm, ok := target.(map[string]any)
		if !ok {
			return nil, r.errf(ptr, "$ref %q points at a value of type %s, not a schema object", s, jsonvalue.TypeName(target))
		}
		if r.active[s] {
			// A recursive reference stays in place: the compiler and
			// the schema nodes resolve it inside the root when a value
			// reaches it, so the tree stays finite.
			return r.recursiveRef(n, s, ptr, depth)
		}
		var out map[string]any
		if m, ok := r.memo[s]; ok {
			r.nodes += m.nodes
			if r.nodes > maxInlinedNodes {
				return nil, r.errf(ptr, "schema grows beyond %d nodes when $refs are inlined", maxInlinedNodes)
			}
			out = m.node
		} else {
			r.active[s] = true
			before := r.nodes
			resolved, err := r.node(tm, ptr, depth+1)
			delete(r.active, s)
			if err != nil {
				return nil, err
			}
			out, _ = resolved.(map[string]any)
			r.memo[s] = resolvedRef{node: out, nodes: r.nodes - before}
		}
		if len(n) > 1 {
			// Lay the sibling keywords over a copy of the target.
			cp := make(map[string]any, len(out)+len(n))
			maps.Copy(cp, out)
			keys := r.order.keys(out)
			for _, k := range r.order.keys(n) {
				if k == "$ref" {
					continue
				}
				v, err := r.child(k, n[k], ptr, depth)
				if err != nil {
					return nil, err
				}
				if _, ok := cp[k]; !ok {
					keys = append(keys, k)
				}
				cp[k] = v
			}
			r.order.set(cp, keys)
			out = cp
		}
		return out, nil
	}
	return r.children(n, ptr, depth, false)
}

// children resolves the members of the schema object n; keepRef keeps its
// $ref as it is.
func (r *refResolver) children(n map[string]any, ptr string, depth int, keepRef bool) (any, error) {
	out := make(map[string]any, len(n))
	for k, v := range n {
		if keepRef && k == "$ref" {
			out[k] = v
			continue
		}
		c, err := r.child(k, v, ptr, depth)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	r.order.copyTo(n, out)
	return out, nil
}

// recursiveRef keeps a recursive $ref s (and its sibling keywords,
// resolved) in place; the target is found in the resolved tree under the
// same pointer. A cycle of nothing but $refs is an error.
func (r *refResolver) recursiveRef(n map[string]any, s, ptr string, depth int) (any, error) {
	if t, _ := lookupPointer(r.root, s[1:]); isPureRef(t) {
		return nil, r.errf(ptr, "$ref %q is cyclic (it refers back to itself through its target) without any schema in between", s)
	}
	return r.children(n, ptr, depth, true)
}

// isPureRef reports whether v is a schema that holds nothing but a $ref.
func isPureRef(v any) bool {
	m, ok := v.(map[string]any)
	_, has := m["$ref"]
	return ok && has && len(m) == 1
}

// child resolves the value of keyword k of a schema node at ptr.
func (r *refResolver) child(k string, v any, ptr string, depth int) (any, error) {
	base := ptr + "/" + escapePointer(k)
	switch k {
	case "properties", "patternProperties", "definitions", "dependencies":
		m, ok := v.(map[string]any)
		if !ok {
			return copyTree(v, r.order), nil
		}
		out := make(map[string]any, len(m))
		for name, sub := range m {
			sm, ok := sub.(map[string]any)
			if !ok {
				out[name] = copyTree(sub, r.order)
				continue
			}
			c, err := r.node(sm, base+"/"+escapePointer(name), depth+1)
			if err != nil {
				return nil, err
			}
			out[name] = c
		}
		r.order.copyTo(m, out)
		return out, nil
	case "items", "allOf", "anyOf", "oneOf":
		if l, ok := v.([]any); ok {
			out := make([]any, len(l))
			for i, e := range l {
				em, ok := e.(map[string]any)
				if !ok {
					out[i] = copyTree(e, r.order)
					continue
				}
				c, err := r.node(em, base+"/"+strconv.Itoa(i), depth+1)
				if err != nil {
					return nil, err
				}
				out[i] = c
			}
			return out, nil
		}
		fallthrough
	case "additionalProperties", "additionalItems", "not":
		if m, ok := v.(map[string]any); ok {
			return r.node(m, base, depth+1)
		}
	}
	return copyTree(v, r.order), nil
}

// lookupPointer resolves a JSON pointer ("" or "/a/b") inside doc.
func lookupPointer(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("pointer %q does not start with /", ptr)
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("no %q in the schema", tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no index %q in the schema", tok)
			}
			cur = x[i]
		default:
			return nil, fmt.Errorf("%q is below a value of type %s", tok, jsonvalue.TypeName(cur))
		}
	}
	return cur, nil
}
