package engine

import (
	"fmt"
	"maps"
	"slices"
)

// Enum switches (x-deckhouse-enum-switch-settings on a oneOf branch). The
// branch discriminator is the property the branch constrains with an enum;
// a switch fires when, between the previous and the new effective settings,
// the discriminator changes from a value of the branch's enum to one of an
// item's `to` values (values compared as strings, booleans as "true"/"false").

type switchItem struct {
	to       []string
	impact   Impact
	messages map[string]string
}

// switchBranch is one oneOf branch with enum switch settings: its
// discriminator (key), the discriminator's enum as strings, and the items.
type switchBranch struct {
	key   string
	enum  []string
	items []switchItem
}

// switchBranches parses the oneOf branches of schema s that carry switch
// items and constrain a discriminator.
func switchBranches(s map[string]any) []switchBranch {
	branches, _ := s["oneOf"].([]any)
	var out []switchBranch
	for _, b := range branches {
		bs := schemaMap(b)
		items := parseSwitchItems(bs[extEnumSwitch])
		if len(items) == 0 {
			continue
		}
		key, enum := branchDiscriminator(bs)
		if key == "" {
			continue
		}
		out = append(out, switchBranch{key: key, enum: enum, items: items})
	}
	return out
}

// switchWalk detects the enum switches between the new and the old
// effective settings.
type switchWalk struct {
	out *[]Switch
}

// walk follows node s over the new (n) and old (o) values at path.
func (w *switchWalk) walk(s *schemaNode, n, o any, path Path) {
	if s == nil || len(path) > maxValueDepth {
		return
	}
	switch nx := n.(type) {
	case map[string]any:
		om, ok := o.(map[string]any)
		if !ok {
			return
		}
		for i := range s.switches {
			w.branch(&s.switches[i], nx, om, path)
		}
		for _, k := range sortedKeys(nx) {
			ov, has := om[k]
			if !has {
				continue
			}
			w.walk(s.entry(k), nx[k], ov, path.Key(k))
		}
	case []any:
		ol, ok := o.([]any)
		if !ok {
			return
		}
		for i := range nx {
			if i < len(ol) {
				w.walk(s.element(i), nx[i], ol[i], path.Index(i))
			}
		}
	}
}

func (w *switchWalk) branch(b *switchBranch, n, o map[string]any, path Path) {
	from, ok := scalarString(o[b.key])
	if !ok || !slices.Contains(b.enum, from) {
		return
	}
	to, ok := scalarString(n[b.key])
	if !ok || to == from {
		return
	}
	for _, it := range b.items {
		if slices.Contains(it.to, to) {
			// A copy of the messages: a caller that changes them does not change the compiled schema.
			*w.out = append(*w.out, Switch{Path: path.Key(b.key), From: from, To: to, Impact: it.impact, Messages: maps.Clone(it.messages)})
		}
	}
}

// branchDiscriminator returns the first property (in name order) the branch
// constrains with an enum, and that enum as strings.
func branchDiscriminator(b map[string]any) (string, []string) {
	props := schemaMap(b["properties"])
	for _, k := range sortedKeys(props) {
		enum, ok := schemaMap(props[k])["enum"].([]any)
		if !ok {
			continue
		}
		var vals []string
		for _, e := range enum {
			en, err := normalize(e)
			if err != nil {
				continue
			}
			if s, ok := scalarString(en); ok {
				vals = append(vals, s)
			}
		}
		return k, vals
	}
	return "", nil
}

func parseSwitchItems(raw any) []switchItem {
	list, _ := raw.([]any)
	var out []switchItem
	for _, e := range list {
		m := schemaMap(e)
		if m == nil {
			continue
		}
		var it switchItem
		if to, ok := m["to"].([]any); ok {
			for _, t := range to {
				tn, err := normalize(t)
				if err != nil {
					continue
				}
				if s, ok := scalarString(tn); ok {
					it.to = append(it.to, s)
				}
			}
		}
		switch imp, _ := m["impact"].(string); Impact(imp) {
		case ImpactWarning, ImpactDestructive:
			it.impact = Impact(imp)
		default:
			it.impact = ImpactInfo
		}
		if msgs := schemaMap(m["messages"]); msgs != nil {
			it.messages = map[string]string{}
			for lang, v := range msgs {
				if s, ok := v.(string); ok {
					it.messages[lang] = s
				}
			}
		}
		out = append(out, it)
	}
	return out
}

// switchProblem is the rejection of a destructive switch that was not
// acknowledged. Its message names the field, not the values (Switch.From and
// Switch.To carry them for callers that know they may show them).
func switchProblem(sw Switch) *Problem {
	msg := fmt.Sprintf("switching field %q to another mode is destructive and must be acknowledged", sw.Path.String())
	if en := sw.Messages["en"]; en != "" {
		msg += ": " + en
	}
	return &Problem{Document: DocSettings, Path: sw.Path, Kind: KindSwitch, Message: msg, Rule: extEnumSwitch}
}
