package engine

// Defaulting, as DP builds values (sources 1 and 4):
//
//   - a property whose key is missing and whose schema has a default gets a
//     deep copy of that default (and defaults nested in it are applied too);
//   - a key present with null is kept as null;
//   - nested defaults apply only where the parent object exists, so a parent
//     needs its own `default: {}` for its children's defaults to appear;
//   - recursion goes through properties, array items and map values
//     (patternProperties / additionalProperties schemas).
//
// Sources are merged in order: a later source deep-merges objects over the
// earlier ones and replaces arrays and scalars whole. effectiveWithDefaults
// implements "defaults, then the document over them": the defaults document
// (the schema's defaults applied to an empty object) is computed first, the
// document is deep-merged over it, and defaults are applied once more so
// objects the document itself creates get their nested defaults.

// effectiveWithDefaults returns defaults(schema) ⊕ doc, with nested defaults
// applied inside objects doc creates. doc is not changed.
func effectiveWithDefaults(schema map[string]any, doc map[string]any) map[string]any {
	base := applyDefaults(schema, map[string]any{}, 0)
	merged := deepMerge(base, doc)
	out, _ := applyDefaults(schema, merged, 0).(map[string]any)
	return out
}

// applyDefaults fills missing keys of v with the defaults of schema s, in
// place where v is an object or array, and returns the (possibly new) value.
func applyDefaults(s map[string]any, v any, depth int) any {
	if s == nil || depth > maxValueDepth {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if props := schemaMap(s["properties"]); props != nil {
			for _, k := range sortedKeys(props) {
				ps := schemaMap(props[k])
				if ps == nil {
					continue
				}
				if _, has := x[k]; !has {
					if d, ok := ps["default"]; ok {
						c, err := normalize(d)
						if err != nil {
							continue
						}
						x[k] = c
					}
				}
			}
		}
		for k, e := range x {
			if e == nil {
				continue
			}
			if es := entrySchema(s, k); es != nil {
				x[k] = applyDefaults(es, e, depth+1)
			}
		}
		return x
	case []any:
		for i, e := range x {
			if e == nil {
				continue
			}
			if is := itemSchema(s, i); is != nil {
				x[i] = applyDefaults(is, e, depth+1)
			}
		}
		return x
	}
	return v
}
