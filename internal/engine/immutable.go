package engine

// Immutability (x-deckhouse-immutable), checked on update against the
// previously applied effective settings:
//   - the extension counts only when it is exactly boolean true;
//   - both sides are effective settings (schema defaults applied);
//   - on an object it freezes the whole subtree;
//   - an old value that was never set (missing or null) is free;
//   - array elements and map entries the update adds are free (no old value);
//   - removing a frozen field or object, directly or by removing an
//     ancestor, is a change.

const extImmutable = "x-deckhouse-immutable"

func immutableMessage(p Path) string {
	return "field \"" + p.String() + "\" is immutable: it can only be set when the application is created"
}

// immutableWalk is one comparison of new effective settings with the
// previous ones; it appends a problem for every frozen change to out.
type immutableWalk struct {
	out *[]*Problem
}

// walk compares the new value n (present when nHas) with the old value o
// under schema node s at path; frozen is set below an immutable node.
func (w *immutableWalk) walk(s *schemaNode, n any, nHas bool, o any, frozen bool, path Path) {
	if len(path) > maxValueDepth {
		return
	}
	if s != nil && s.immutable {
		frozen = true
	}
	if o == nil {
		return // never set: free
	}
	if _, unk := o.(Unknown); unk {
		return // not compared: see immutableSkips
	}
	if _, unk := n.(Unknown); unk {
		return
	}
	if !frozen && !s.mayHoldImmutable() {
		return
	}
	if frozen {
		if !nHas {
			*w.out = append(*w.out, immutableProblem(path))
			return
		}
		om, oIsMap := o.(map[string]any)
		nm, nIsMap := n.(map[string]any)
		if oIsMap && nIsMap {
			for _, k := range sortedKeys(om) {
				nv, has := nm[k]
				w.walk(s.entry(k), nv, has, om[k], true, path.Key(k))
			}
			return
		}
		ol, oIsList := o.([]any)
		nl, nIsList := n.([]any)
		if oIsList && nIsList {
			for i := range ol {
				var nv any
				has := i < len(nl)
				if has {
					nv = nl[i]
				}
				w.walk(s.element(i), nv, has, ol[i], true, path.Index(i))
			}
			return
		}
		if !valuesEqual(n, o) {
			*w.out = append(*w.out, immutableProblem(path))
		}
		return
	}
	switch ox := o.(type) {
	case map[string]any:
		nm, _ := n.(map[string]any)
		for _, k := range sortedKeys(ox) {
			cs := s.entry(k)
			if cs == nil {
				continue
			}
			nv, has := nm[k]
			w.walk(cs, nv, has, ox[k], false, path.Key(k))
		}
	case []any:
		nl, _ := n.([]any)
		for i := range ox {
			var nv any
			has := i < len(nl)
			if has {
				nv = nl[i]
			}
			w.walk(s.element(i), nv, has, ox[i], false, path.Index(i))
		}
	}
}

func immutableProblem(p Path) *Problem {
	return &Problem{Document: DocSettings, Path: p, Kind: KindImmutable, Message: immutableMessage(p), Rule: extImmutable}
}
