package application

import (
	"sort"
	"strings"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// Helpers on settings documents in the JSON data model (map[string]any,
// []any, string, bool, numbers, nil). They never log or print values.

// leafPaths lists the key paths of every non-object value (and every empty
// object) in doc, sorted. The root itself is never a leaf.
func leafPaths(doc any) [][]string {
	var out [][]string
	var walk func(v any, p []string)
	walk = func(v any, p []string) {
		m, ok := v.(map[string]any)
		if !ok || (len(m) == 0 && len(p) > 0) {
			out = append(out, append([]string(nil), p...))
			return
		}
		for k, e := range m {
			walk(e, append(p, k))
		}
	}
	if m, ok := doc.(map[string]any); ok && len(m) > 0 {
		walk(m, nil)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
	return out
}

// stripPaths returns a copy of doc without the values at paths. An object
// emptied by the removal is removed too, unless keep reports that the user
// declared that (empty) object.
func stripPaths(doc any, paths [][]string, keep func(p []string) bool) any {
	out := engine.Merge(map[string]any{}, doc) // a deep copy
	root, ok := out.(map[string]any)
	if !ok {
		return out
	}
	for _, p := range paths {
		removePath(root, p, nil, keep)
	}
	return root
}

func removePath(m map[string]any, p, prefix []string, keep func([]string) bool) {
	if len(p) == 0 {
		return
	}
	if len(p) == 1 {
		delete(m, p[0])
		return
	}
	child, ok := m[p[0]].(map[string]any)
	if !ok {
		return
	}
	here := append(append([]string(nil), prefix...), p[0])
	wasEmpty := len(child) == 0
	removePath(child, p[1:], here, keep)
	if !wasEmpty && len(child) == 0 && (keep == nil || !keep(here)) {
		delete(m, p[0])
	}
}

// lookupPath returns the value at a key path.
func lookupPath(doc any, p []string) (any, bool) {
	cur := doc
	for _, k := range p {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// sensitivePath is the key path of a value written from sensitive_settings,
// as the private state records it.
type sensitivePath []string

// secretPaths lists the key paths of the values of sensitive_settings that a
// write sends (null leaves remove a setting and are not secrets).
func secretPaths(sensitive any) []sensitivePath {
	var out []sensitivePath
	for _, p := range leafPaths(sensitive) {
		if v, ok := lookupPath(sensitive, p); ok && v != nil {
			out = append(out, sensitivePath(p))
		}
	}
	return out
}

// plainPaths returns the key paths of sps.
func plainPaths(sps []sensitivePath) [][]string {
	out := make([][]string, 0, len(sps))
	for _, sp := range sps {
		out = append(out, []string(sp))
	}
	return out
}

// display is the path as diagnostics name it.
func (sp sensitivePath) display() string { return strings.Join(sp, ".") }

// isEmptyDoc reports whether doc is nil or an empty object.
func isEmptyDoc(doc any) bool {
	if doc == nil {
		return true
	}
	m, ok := doc.(map[string]any)
	return ok && len(m) == 0
}
