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

// checkImmutable compares the new value n (present when nHas) with the old
// value o under schema s and appends a problem for every frozen change.
func checkImmutable(s map[string]any, n any, nHas bool, o any, frozen bool, path Path, depth int, out *[]*Problem) {
	if depth > maxValueDepth {
		return
	}
	if s != nil {
		if b, ok := s[extImmutable].(bool); ok && b {
			frozen = true
		}
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
	if !frozen && !containsImmutable(s, 0) {
		return
	}
	if frozen {
		if !nHas {
			*out = append(*out, immutableProblem(path))
			return
		}
		om, oIsMap := o.(map[string]any)
		nm, nIsMap := n.(map[string]any)
		if oIsMap && nIsMap {
			for _, k := range sortedKeys(om) {
				nv, has := nm[k]
				checkImmutable(childSchema(s, k), nv, has, om[k], true, path.Key(k), depth+1, out)
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
				checkImmutable(itemSchemaOf(s, i), nv, has, ol[i], true, path.Index(i), depth+1, out)
			}
			return
		}
		if !valuesEqual(n, o) {
			*out = append(*out, immutableProblem(path))
		}
		return
	}
	switch ox := o.(type) {
	case map[string]any:
		nm, _ := n.(map[string]any)
		for _, k := range sortedKeys(ox) {
			cs := entrySchema(s, k)
			if cs == nil {
				continue
			}
			nv, has := nm[k]
			checkImmutable(cs, nv, has, ox[k], false, path.Key(k), depth+1, out)
		}
	case []any:
		nl, _ := n.([]any)
		for i := range ox {
			var nv any
			has := i < len(nl)
			if has {
				nv = nl[i]
			}
			checkImmutable(itemSchema(s, i), nv, has, ox[i], false, path.Index(i), depth+1, out)
		}
	}
}

// childSchema and itemSchemaOf tolerate a nil schema (a frozen subtree may
// hold values the schema does not describe, e.g. free-form maps).
func childSchema(s map[string]any, k string) map[string]any {
	if s == nil {
		return nil
	}
	return entrySchema(s, k)
}

func itemSchemaOf(s map[string]any, i int) map[string]any {
	if s == nil {
		return nil
	}
	return itemSchema(s, i)
}

func immutableProblem(p Path) *Problem {
	return &Problem{Document: DocSettings, Path: p, Kind: KindImmutable, Message: immutableMessage(p), Rule: extImmutable}
}

// containsImmutable reports whether schema s or anything below it is marked
// immutable, so the walk skips subtrees that cannot hold a frozen value.
func containsImmutable(s map[string]any, depth int) bool {
	if s == nil || depth > 64 {
		return s != nil // very deep schemas: be conservative and walk them
	}
	if b, ok := s[extImmutable].(bool); ok && b {
		return true
	}
	if props := schemaMap(s["properties"]); props != nil {
		for _, p := range props {
			if containsImmutable(schemaMap(p), depth+1) {
				return true
			}
		}
	}
	if pp := schemaMap(s["patternProperties"]); pp != nil {
		for _, p := range pp {
			if containsImmutable(schemaMap(p), depth+1) {
				return true
			}
		}
	}
	if containsImmutable(schemaMap(s["additionalProperties"]), depth+1) {
		return true
	}
	switch it := s["items"].(type) {
	case map[string]any:
		return containsImmutable(it, depth+1)
	case []any:
		for _, e := range it {
			if containsImmutable(schemaMap(e), depth+1) {
				return true
			}
		}
	}
	return false
}
