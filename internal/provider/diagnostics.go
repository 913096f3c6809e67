package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// problemDiagnostics turns every engine Problem into an error diagnostic at
// root plus the problem's path. OpenTofu shows a path inside a dynamic value
// at the block's first line, so the summary spells the full path out, e.g.
// "Invalid settings.postgres.storageClass: pattern"; the detail is DP's text.
func problemDiagnostics(root path.Path, problems []*engine.Problem) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, p := range problems {
		if p == nil {
			continue
		}
		diags.AddAttributeError(attributePath(root, p.Path), problemSummary(root, p), p.Message)
	}
	return diags
}

// problemDiagnosticsByDocument is problemDiagnostics with the root chosen by
// each problem's Document; problems of a document without a root use
// fallback.
func problemDiagnosticsByDocument(roots map[engine.Document]path.Path, fallback path.Path, problems []*engine.Problem) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, p := range problems {
		root, ok := roots[p.Document]
		if !ok {
			root = fallback
		}
		diags.Append(problemDiagnostics(root, []*engine.Problem{p})...)
	}
	return diags
}

func problemSummary(root path.Path, p *engine.Problem) string {
	kind := string(p.Kind)
	if kind == "" {
		kind = string(engine.KindSchema)
	}
	return fmt.Sprintf("Invalid %s: %s", spellPath(root, p.Path), kind)
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

// attributePath extends a Terraform attribute path with a document path:
// object keys as attribute names, array indexes as list indexes (the steps a
// dynamic value's objects and tuples use).
func attributePath(root path.Path, p engine.Path) path.Path {
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

// switchDiagnostics reports enum switches: warning impact as a warning with
// the English message; info as nothing; destructive is an error Problem
// unless acknowledged (allow), in which case it is a warning saying so.
func switchDiagnostics(root path.Path, sw []engine.Switch, allow bool) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, s := range sw {
		where := spellPath(root, s.Path)
		msg := switchMessage(s)
		switch s.Impact {
		case engine.ImpactWarning:
			diags.AddAttributeWarning(attributePath(root, s.Path),
				fmt.Sprintf("Settings switch %s: %s → %s", where, s.From, s.To), msg)
		case engine.ImpactDestructive:
			if allow {
				diags.AddAttributeWarning(attributePath(root, s.Path),
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
