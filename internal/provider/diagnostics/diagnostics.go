package diagnostics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// FromProblems turns every engine Problem into an error diagnostic at
// root plus the problem's path. OpenTofu shows a path inside a dynamic value
// at the block's first line, so the summary spells the full path out in
// words, e.g. "Invalid settings.postgres.storageClass: does not match the
// pattern"; the detail is DP's text (which never holds the value), the CEL
// expression of a failed rule, and a "did you mean" for an undeclared field.
func FromProblems(root path.Path, problems []*engine.Problem) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, p := range problems {
		if p == nil {
			continue
		}
		diags.AddAttributeError(AttributePath(root, p.Path), problemSummary(root, p), problemDetail(root, p))
	}
	return diags
}

// problemDetail is the detail of a Problem's diagnostic.
func problemDetail(root path.Path, p *engine.Problem) string {
	detail := p.Message
	if p.Kind == engine.KindUndeclared && p.Suggestion != "" {
		detail += fmt.Sprintf(" Did you mean %q (%s)?", p.Suggestion, spellPath(root, append(parentPath(p.Path), engine.Segment{Key: p.Suggestion})))
	}
	if p.Kind == engine.KindCEL && p.Rule != "" {
		detail += "\n\nRule (x-deckhouse-validations): " + p.Rule
	}
	return detail
}

func parentPath(p engine.Path) engine.Path {
	if len(p) == 0 {
		return nil
	}
	return slices.Clone(p[:len(p)-1])
}

// Skipped reports the checks a partial evaluation could not run
// because they depend on values unknown at plan: one diagnostic per unknown
// value, naming each skipped check; errors when required (plan_checks =
// "required"), else warnings.
func Skipped(root path.Path, skipped []engine.Skipped, required bool) diag.Diagnostics {
	var diags diag.Diagnostics
	type group struct {
		unknown engine.Path
		checks  []string
	}
	var groups []*group
	byPath := map[string]*group{}
	for _, s := range skipped {
		key := s.Unknown.String()
		g := byPath[key]
		if g == nil {
			g = &group{unknown: s.Unknown}
			byPath[key] = g
			groups = append(groups, g)
		}
		c := s.Check
		if s.Rule != "" {
			c += " " + strconv.Quote(s.Rule)
		}
		if where := spellPath(root, s.Path); where != spellPath(root, s.Unknown) {
			c += " at " + where
		}
		g.checks = append(g.checks, c)
	}
	for _, g := range groups {
		where := spellPath(root, g.unknown)
		summary := "Not checked at plan: " + where + " is known only at apply"
		detail := fmt.Sprintf("These checks depend on %s, which is known only after apply, so the plan could not run them: %s. "+
			"Every other check ran. The apply runs them all before it writes the Application.", where, strings.Join(g.checks, "; "))
		if required {
			diags.AddAttributeError(AttributePath(root, g.unknown), summary,
				detail+` plan_checks = "required" makes this an error: give the value a known value at plan, or use plan_checks = "best_effort".`)
		} else {
			diags.AddAttributeWarning(AttributePath(root, g.unknown), summary, detail)
		}
	}
	return diags
}

// FromProblemsByDocument is FromProblems with the root chosen by
// each problem's Document; problems of a document without a root use
// fallback.
func FromProblemsByDocument(roots map[engine.Document]path.Path, fallback path.Path, problems []*engine.Problem) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, p := range problems {
		root, ok := roots[p.Document]
		if !ok {
			root = fallback
		}
		diags.Append(FromProblems(root, []*engine.Problem{p})...)
	}
	return diags
}

func problemSummary(root path.Path, p *engine.Problem) string {
	words := p.Kind.Description()
	if words == "" {
		words = engine.KindSchema.Description()
	}
	return fmt.Sprintf("Invalid %s: %s", spellPath(root, p.Path), words)
}

// spellPath renders root and a document path as one string:
// settings.postgres.storageClass, settings.items[0].name.
func spellPath(root path.Path, p engine.Path) string {
	r := root.String()
	s := p.String()
	switch {
	case s == "":
		return r
	case r == "":
		return s
	case strings.HasPrefix(s, "["):
		return r + s
	default:
		return r + "." + s
	}
}

// AttributePath extends a Terraform attribute path with a document path:
// object keys as attribute names, array indexes as list indexes (the steps a
// dynamic value's objects and tuples use).
func AttributePath(root path.Path, p engine.Path) path.Path {
	out := root
	for _, s := range p {
		if s.IsIndex {
			out = out.AtListIndex(s.Index)
		} else {
			out = out.AtName(s.Key)
		}
	}
	return out
}

// Switches reports enum switches: warning impact as a warning with
// the English message; info as nothing; destructive is an error Problem
// unless acknowledged (allow), in which case it is a warning saying so.
func Switches(root path.Path, sw []engine.Switch, allow bool) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, s := range sw {
		where := spellPath(root, s.Path)
		msg := switchMessage(s)
		switch s.Impact {
		case engine.ImpactWarning:
			diags.AddAttributeWarning(AttributePath(root, s.Path),
				fmt.Sprintf("Settings switch %s: %s → %s", where, s.From, s.To), msg)
		case engine.ImpactDestructive:
			if allow {
				diags.AddAttributeWarning(AttributePath(root, s.Path),
					fmt.Sprintf("Destructive settings switch acknowledged %s: %s → %s", where, s.From, s.To), msg)
			}
		}
	}
	return diags
}

// switchMessage is the English message of a switch, or any message when
// there is no English one.
func switchMessage(s engine.Switch) string {
	if m, ok := s.Messages["en"]; ok && m != "" {
		return m
	}
	best := ""
	for lang, m := range s.Messages {
		if m != "" && (best == "" || lang < best) {
			best = lang
		}
	}
	if best != "" {
		return s.Messages[best]
	}
	return fmt.Sprintf("The field changes from %q to %q.", s.From, s.To)
}
