package engine

import (
	"strconv"
	"strings"
)

// This file holds the exported types of a problem report: Kind, Document,
// Path and Problem.

// Kind is the stable, machine-readable class of a Problem.
type Kind string

// The closed set of problem kinds.
const (
	KindUndeclared Kind = "undeclared" // a field not declared in the schema (additionalProperties: false)
	KindType       Kind = "type"       // wrong JSON type (including null where not nullable)
	KindEnum       Kind = "enum"       // value not in enum
	KindPattern    Kind = "pattern"    // string does not match pattern
	KindRequired   Kind = "required"   // required field missing
	KindCEL        Kind = "cel"        // an x-deckhouse-validations rule failed or could not be evaluated
	KindImmutable  Kind = "immutable"  // an x-deckhouse-immutable field changed on update
	KindGrant      Kind = "grant"      // a grantable-resource value not available to the project
	KindSwitch     Kind = "switch"     // a destructive enum switch that was not acknowledged
	KindSchema     Kind = "schema"     // any other schema keyword (minimum, format, oneOf, maxLength, ...)
)

// Description returns the kind in human words, for the summary line of a
// diagnostic (for example "rule failed" for KindCEL); "" for an unknown kind.
func (k Kind) Description() string {
	switch k {
	case KindUndeclared:
		return "field not declared in the package schema"
	case KindType:
		return "wrong type"
	case KindEnum:
		return "value not allowed"
	case KindPattern:
		return "does not match the pattern"
	case KindRequired:
		return "required field missing"
	case KindCEL:
		return "rule failed"
	case KindImmutable:
		return "immutable field changed"
	case KindGrant:
		return "resource not available to the project"
	case KindSwitch:
		return "destructive switch not acknowledged"
	case KindSchema:
		return "schema rule violated"
	}
	return ""
}

// Document names which input document a Problem is about.
type Document string

// Documents a Problem can point into.
const (
	DocSettings         Document = "settings"
	DocHookValues       Document = "hook_values"
	DocPreviousSettings Document = "previous_settings"
)

// Segment is one step of a Path: an object key or an array index.
type Segment struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path locates a value inside a document as segments, so callers can build
// their own path types (for example a Terraform attribute path) without parsing.
type Path []Segment

// Key returns a new path with an object key appended.
func (p Path) Key(k string) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, Segment{Key: k})
}

// Index returns a new path with an array index appended.
func (p Path) Index(i int) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, Segment{Index: i, IsIndex: true})
}

// String renders the path as DP does: a.b[0].c (empty for the root).
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if s.IsIndex {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

// Problem is one reason DP would reject a document.
//
// No field of a Problem holds an instance value: settings may carry secrets,
// so messages name the field, the schema's side of a check ("must be at
// least 1000", "must be a valid uri: not an absolute URI", the allowed enum
// values, the names of a grant catalog) and texts the package author wrote
// (a CEL rule's message, x-deckhouse-ui-validation-message), never the value
// that failed. Path holds keys of the document, which are not values.
type Problem struct {
	Document Document
	Path     Path   // where the offending value is (for required: the missing field's path)
	Kind     Kind   // stable class
	Message  string // human text: DP's text without the value, the CEL message verbatim, or the ui-validation-message
	Rule     string // what was violated: schema keyword (e.g. "pattern"), the CEL expression for every KindCEL problem, or extension name
	// Suggestion is, for a KindUndeclared field, the declared sibling
	// property whose name is closest to the undeclared key (Levenshtein
	// distance at most max(2, len(key)/3); ties go to the alphabetically
	// first name), for a "did you mean" hint; "" when none is that close,
	// and for every other kind.
	Suggestion string
}

// Error renders "path: message" (or just the message at the root).
func (e *Problem) Error() string {
	if len(e.Path) == 0 {
		return e.Message
	}
	return e.Path.String() + ": " + e.Message
}
