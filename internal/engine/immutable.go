package engine

import "github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"

// Immutability (x-deckhouse-immutable), checked on update as DP's
// Application webhook does it:
//   - the extension counts only when it is exactly boolean true;
//   - both sides get the settings schema defaults first (the old side in
//     every mode), then every grantable path that the new settings leave
//     absent or "" is dropped from the old side (the grant default fills
//     both sides alike; see dropUnsetGrants);
//   - a marked node is compared as one whole value (deep equality): under a
//     marked object, map or array any added, removed or changed key or
//     element is a change, and the problem names the marked node;
//   - an old value that is absent or null at the marked node is free (the
//     field was never set), so marks inside elements or entries an update
//     adds do not apply, while removing a frozen value is a change;
//   - the walk follows properties, then for other keys the first matching
//     patternProperties schema, else additionalProperties; items (one schema
//     or a tuple, then additionalItems) over the longer of the two lists;
//     keys of both sides unioned. Marks inside allOf, anyOf, oneOf, not and
//     dependencies sub-schemas count at the same path, whether or not the
//     value matches that branch.

func immutableMessage(p Path) string {
	return "field \"" + p.String() + "\" is immutable: it can only be set when the application is created"
}

// immutableWalk is one comparison of the new settings with the previous
// ones (both with schema defaults); it appends a problem for every changed
// marked node to out.
type immutableWalk struct {
	out *[]*Problem
}

// walk compares the old value o with the new value n under schema node s
// at path. A nil value is an absent one (null and absent are alike here).
func (w *immutableWalk) walk(s *schemaNode, o, n any, path Path) {
	if !s.mayHoldImmutable() || len(path) > maxValueDepth {
		return
	}
	if _, unk := o.(Unknown); unk {
		return // not compared: see immutableSkips
	}
	if _, unk := n.(Unknown); unk {
		return
	}
	if s.immutable {
		if o != nil && !jsonvalue.EqualKnown(o, n) {
			*w.out = append(*w.out, immutableProblem(path))
		}
		return
	}
	for _, b := range s.branches {
		w.walk(b.node, o, n, path)
	}
	w.walk(s.not, o, n, path)
	for _, d := range s.deps {
		w.walk(d, o, n, path)
	}
	om, oIsMap := o.(map[string]any)
	nm, nIsMap := n.(map[string]any)
	if oIsMap || nIsMap {
		for _, k := range unionKeys(om, nm) {
			w.walk(s.entry(k), om[k], nm[k], path.Key(k))
		}
	}
	ol, _ := o.([]any)
	nl, _ := n.([]any)
	for i := 0; i < len(ol) || i < len(nl); i++ {
		w.walk(s.element(i), at(ol, i), at(nl, i), path.Index(i))
	}
}

// at returns element i of l, or nil past its end.
func at(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}

// unionKeys returns the keys of a and b, sorted, without duplicates.
func unionKeys(a, b map[string]any) []string {
	seen := make(map[string]any, len(a)+len(b))
	for k := range a {
		seen[k] = nil
	}
	for k := range b {
		seen[k] = nil
	}
	return sortedKeys(seen)
}

func immutableProblem(p Path) *Problem {
	return &Problem{Document: DocSettings, Path: p, Kind: KindImmutable, Message: immutableMessage(p), Rule: extImmutable}
}

// immutableSides builds the two documents DP compares: the previous and
// the new settings, each with the settings schema defaults; then every
// grantable path the new side leaves absent or "" is removed from the old
// side. prev and user are not changed.
func immutableSides(root *schemaNode, prev, user map[string]any) (old, cur map[string]any) {
	old = applyDefaults(root, prev)
	cur = applyDefaults(root, user)
	for _, g := range root.grantPaths() {
		if emptyAt(cur, g.path) {
			deleteAt(old, g.path)
		}
	}
	return old, cur
}

// emptyAt reports whether the value at path (object keys only) is absent
// or an empty string; a non-object on the way is not empty.
func emptyAt(doc map[string]any, path Path) bool {
	cur := doc
	for i, seg := range path {
		v, ok := cur[seg.Key]
		if !ok {
			return true
		}
		if i == len(path)-1 {
			s, isStr := v.(string)
			return isStr && s == ""
		}
		next, isMap := v.(map[string]any)
		if !isMap {
			return false
		}
		cur = next
	}
	return true
}

// deleteAt removes the key at path (object keys only) when every parent is
// an object; doc is a copy owned by the caller.
func deleteAt(doc map[string]any, path Path) {
	cur := doc
	for i, seg := range path {
		if i == len(path)-1 {
			delete(cur, seg.Key)
			return
		}
		next, isMap := cur[seg.Key].(map[string]any)
		if !isMap {
			return
		}
		cur = next
	}
}
