package engine

// Defaulting, as DP builds values (sources 1 and 4):
//
//   - a property whose key is missing and whose schema has a default gets a
//     deep copy of that default (and defaults nested in it are applied too);
//     `default: null` is no default: nothing is injected;
//   - a key present with null is kept as null;
//   - nested defaults apply only where the parent object exists, so a parent
//     needs its own `default: {}` for its children's defaults to appear;
//   - recursion goes through properties, array items and map values
//     (patternProperties / additionalProperties schemas).
//
// Sources are merged in order: a later source deep-merges objects over the
// earlier ones and replaces arrays and scalars whole. withDefaults does
// "schema defaults, then the document over them" in one copying pass: a
// missing key gets its default (with the defaults nested in it), a present
// object is deep-merged over its property's object default, and defaults
// are applied inside every object the document itself holds.

// applyDefaults returns defaults(n) ⊕ doc as a new document; doc is not
// changed and shares nothing with the result.
func applyDefaults(n *schemaNode, doc map[string]any) map[string]any {
	out, _ := n.withDefaults(doc, 0).(map[string]any)
	return out
}

// withDefaults returns a copy of v with the defaults of node n applied.
func (n *schemaNode) withDefaults(v any, depth int) any {
	if n == nil || depth > maxValueDepth {
		return deepCopy(v)
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x)+len(n.props))
		for k, e := range x {
			if e == nil {
				out[k] = nil
				continue
			}
			out[k] = n.entry(k).withDefaults(e, depth+1)
		}
		for _, k := range n.defaultProps {
			ps := n.props[k]
			cur, present := out[k]
			if present {
				// A present object is merged over an object default.
				if cm, ok := cur.(map[string]any); ok {
					if dm, ok := ps.def.(map[string]any); ok {
						if dd, ok := ps.withDefaults(dm, depth+1).(map[string]any); ok {
							mergeUnder(cm, dd)
						}
					}
				}
				continue
			}
			out[k] = ps.withDefaults(ps.def, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if e == nil {
				continue
			}
			out[i] = n.element(i).withDefaults(e, depth+1)
		}
		return out
	}
	nv, err := normalize(v)
	if err != nil {
		return nil
	}
	return nv
}

// mergeUnder fills dst with the keys of base it lacks, recursing into
// objects both hold: base is the earlier source, dst the later one. base is
// owned by the caller and may be linked into dst.
func mergeUnder(dst, base map[string]any) {
	for k, bv := range base {
		dv, has := dst[k]
		if !has {
			dst[k] = bv
			continue
		}
		if dm, ok := dv.(map[string]any); ok {
			if bm, ok := bv.(map[string]any); ok {
				mergeUnder(dm, bm)
			}
		}
	}
}

// assembleValues computes sources 4 and 5 of DP's values on top of the
// effective settings: the defaults of the values schema (node values) for
// fields still unset, then the hook values deep-merged over the result.
// Without a values schema the result is the effective settings plus the
// hook values.
func assembleValues(values *schemaNode, effective map[string]any, hook map[string]any) map[string]any {
	var out any
	if values != nil {
		out = applyDefaults(values, effective)
	} else {
		out = deepCopy(effective)
	}
	if hook != nil {
		out = deepMerge(out, hook)
	}
	m, _ := out.(map[string]any)
	return m
}
