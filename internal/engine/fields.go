package engine

import (
	"math"
	"sort"
)

// Fields lists the form metadata of every settings field, depth first. Siblings
// are ordered as the form orders them: fields with x-deckhouse-ui-order
// first, by ascending order, then the others; ties keep the order of the
// schema source (by name for schemas whose source order is unknown). A
// field's children follow it.
// Array elements appear once with an index segment of -1 (any element);
// entries of a map (additionalProperties schema) appear once with the key
// "*" (any key). The list is computed from the immutable schema on each
// call, so callers may change it freely.
func (p *Package) Fields() []Field {
	var out []Field
	(&fieldsWalk{keys: p.settings.keys, out: &out}).walk(p.settings.node, nil)
	return out
}

// fieldsWalk lists the fields of a schema; keys gives the keys of a map of
// the prepared tree in source order.
type fieldsWalk struct {
	keys   func(map[string]any) []string
	out    *[]Field
	onPath map[*schemaNode]bool // a recursive schema is listed once around a cycle
}

// walk appends the fields below node s, whose own field is at path.
func (w *fieldsWalk) walk(s *schemaNode, path Path) {
	if s == nil || len(path) > maxValueDepth || w.onPath[s] {
		return
	}
	if w.onPath == nil {
		w.onPath = map[*schemaNode]bool{}
	}
	w.onPath[s] = true
	defer delete(w.onPath, s)
	if props := schemaMap(s.raw["properties"]); props != nil {
		type entry struct {
			name  string
			order int
			has   bool
		}
		entries := make([]entry, 0, len(props))
		for _, k := range w.keys(props) {
			o, has := intOf(schemaMap(props[k])[extUIOrder])
			entries = append(entries, entry{k, o, has})
		}
		sort.SliceStable(entries, func(i, j int) bool {
			a, b := entries[i], entries[j]
			if a.has != b.has {
				return a.has
			}
			if a.has && a.order != b.order {
				return a.order < b.order
			}
			return false
		})
		for _, e := range entries {
			ps := s.props[e.name]
			if ps == nil {
				continue
			}
			fp := path.Key(e.name)
			*w.out = append(*w.out, fieldOf(ps, fp))
			w.walk(ps, fp)
		}
	}
	if s.items != nil {
		w.walk(s.items, path.Index(-1))
	}
	if s.additional != nil {
		fp := path.Key("*")
		*w.out = append(*w.out, fieldOf(s.additional, fp))
		w.walk(s.additional, fp)
	}
}

// fieldOf returns the field of node n at path; nothing of it is shared with
// the compiled schema.
func fieldOf(n *schemaNode, path Path) Field {
	s := n.raw
	f := Field{Path: path}
	f.Type, _ = s["type"].(string)
	f.Description, _ = s["description"].(string)
	if n.hasDefault { // `default: null` is no default
		if c, err := normalize(n.def); err == nil {
			f.Default, f.HasDefault = c, true
		}
	}
	if o, ok := intOf(s[extUIOrder]); ok {
		f.UIOrder = &o
	}
	f.UIGroup, _ = s[extUIGroup].(string)
	f.UIAdvanced, _ = s[extUIAdvanced].(bool)
	f.UIValidationMessage, _ = s[extUIValidationMessage].(string)
	if rn := schemaMap(s[extResourceName]); rn != nil {
		ref := &ResourceRef{}
		ref.APIVersion, _ = rn["apiVersion"].(string)
		ref.Kind, _ = rn["kind"].(string)
		if ls := schemaMap(rn["labelSelector"]); ls != nil {
			if c, err := normalize(ls); err == nil {
				ref.LabelSelector, _ = c.(map[string]any)
			}
		}
		f.ResourceName = ref
	}
	f.GrantableResource = n.grantable
	f.Immutable = n.immutable
	return f
}

// intOf reads an integral JSON number.
func intOf(v any) (int, bool) {
	n, err := normalize(v)
	if err != nil {
		return 0, false
	}
	switch x := n.(type) {
	case int64:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return int(x), true
		}
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt32 && x <= math.MaxInt32 {
			return int(x), true
		}
	}
	return 0, false
}

// ResourceRef is the value of x-deckhouse-ui-resource-name.
type ResourceRef struct {
	APIVersion    string
	Kind          string
	LabelSelector map[string]any // a metav1.LabelSelector in JSON form, nil when absent
}

// Field is the form metadata of one settings field.
type Field struct {
	Path                Path
	Type                string // schema type ("" when type-less)
	Description         string
	Default             any
	HasDefault          bool
	UIOrder             *int
	UIGroup             string
	UIAdvanced          bool
	UIValidationMessage string
	ResourceName        *ResourceRef
	GrantableResource   string // x-deckhouse-grantable-resource ("" when unbound)
	Immutable           bool
}
