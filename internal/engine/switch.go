package engine

import "fmt"

// Enum switches (x-deckhouse-enum-switch-settings on a oneOf branch). The
// branch discriminator is the property the branch constrains with an enum;
// a switch fires when, between the previous and the new effective settings,
// the discriminator changes from a value of the branch's enum to one of an
// item's `to` values (values compared as strings, booleans as "true"/"false").

const extEnumSwitch = "x-deckhouse-enum-switch-settings"

type switchItem struct {
	to       []string
	impact   Impact
	messages map[string]string
}

// detectSwitches walks the schema over the new (n) and old (o) effective
// settings and returns every switch.
func detectSwitches(s map[string]any, n, o any, path Path, depth int, out *[]Switch) {
	if s == nil || depth > maxValueDepth {
		return
	}
	switch nx := n.(type) {
	case map[string]any:
		om, ok := o.(map[string]any)
		if !ok {
			return
		}
		if branches, ok := s["oneOf"].([]any); ok {
			for _, b := range branches {
				switchesOfBranch(schemaMap(b), nx, om, path, out)
			}
		}
		for _, k := range sortedKeys(nx) {
			ov, has := om[k]
			if !has {
				continue
			}
			detectSwitches(entrySchema(s, k), nx[k], ov, path.Key(k), depth+1, out)
		}
	case []any:
		ol, ok := o.([]any)
		if !ok {
			return
		}
		for i := range nx {
			if i < len(ol) {
				detectSwitches(itemSchema(s, i), nx[i], ol[i], path.Index(i), depth+1, out)
			}
		}
	}
}

func switchesOfBranch(b map[string]any, n, o map[string]any, path Path, out *[]Switch) {
	items := parseSwitchItems(b[extEnumSwitch])
	if len(items) == 0 {
		return
	}
	key, enum := branchDiscriminator(b)
	if key == "" {
		return
	}
	from, ok := scalarString(o[key])
	if !ok || !contains(enum, from) {
		return
	}
	to, ok := scalarString(n[key])
	if !ok || to == from {
		return
	}
	for _, it := range items {
		if contains(it.to, to) {
			*out = append(*out, Switch{Path: path.Key(key), From: from, To: to, Impact: it.impact, Messages: it.messages})
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

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
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
