package engine

import (
	"strconv"
	"strings"
)

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

// Document names which input document a Problem is about.
type Document string

// Documents a Problem can point into.
const (
	DocSettings         Document = "settings"
	DocHookValues       Document = "hook_values"
	DocPreviousSettings Document = "previous_settings"
	DocValues           Document = "values" // a complete values document (ValidateValues)
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
type Problem struct {
	Document Document
	Path     Path   // where the offending value is (for required: the missing field's path)
	Kind     Kind   // stable class
	Message  string // human text: DP's text, the CEL message verbatim, or the ui-validation-message
	Rule     string // what was violated: schema keyword (e.g. "pattern"), CEL expression, or extension name
}

// Error renders "path: message" (or just the message at the root).
func (e *Problem) Error() string {
	if len(e.Path) == 0 {
		return e.Message
	}
	return e.Path.String() + ": " + e.Message
}

// Impact of an enum switch (x-deckhouse-enum-switch-settings).
type Impact string

// Switch impacts.
const (
	ImpactInfo        Impact = "info"
	ImpactWarning     Impact = "warning"
	ImpactDestructive Impact = "destructive"
)

// Switch is a detected change of a oneOf branch discriminator that carries
// x-deckhouse-enum-switch-settings.
type Switch struct {
	Path     Path              // path of the discriminator field, e.g. storage.mode
	From     string            // old value, as a string
	To       string            // new value, as a string
	Impact   Impact            // info when unset
	Messages map[string]string // by language code (en, ru)
}

// GrantCatalog is what an AvailableClusterResource says for one resource name.
type GrantCatalog struct {
	Default   string   // the project default name ("" = none)
	Available []string // names available to the project
}

// Catalog maps the name used in x-deckhouse-grantable-resource (for example
// "storageclasses") to that project's catalog. An absent key means no catalog.
type Catalog map[string]GrantCatalog

// Request is one evaluation of settings as DP would do it.
type Request struct {
	// Settings are the raw user settings (Application.spec.settings) in the
	// JSON data model: map[string]any, []any, string, bool, nil, and numbers
	// as float64, int64, int or json.Number. nil means an empty object.
	Settings any
	// Previous are the settings last applied: by default the effective
	// settings (status.lastAppliedConfiguration). When HasPrevious is true
	// the evaluation is an update: oldSelf rules run, immutable fields are
	// checked, enum switches are detected.
	Previous    any
	HasPrevious bool
	// PreviousIsRaw says Previous are raw user settings (the old
	// spec.settings, DP's fallback when lastAppliedConfiguration is empty):
	// the settings schema defaults are applied to them first, so both sides
	// of the update checks are effective settings, as DP compares them.
	PreviousIsRaw bool
	// Catalog is the project's grant catalog (the engine does no I/O).
	Catalog Catalog
	// HookValues are values set by hooks (source 5), validated against the
	// values schema including its CEL rules. nil means none.
	HookValues any
	// AllowDestructiveSwitch acknowledges destructive enum switches.
	AllowDestructiveSwitch bool
}

// Result is the verdict and the computed documents.
type Result struct {
	// Problems lists every reason of rejection, sorted by document, path, kind.
	Problems []*Problem
	// Switches lists every detected enum switch (all impacts). A destructive
	// one without acknowledgement also appears in Problems as KindSwitch.
	Switches []Switch
	// Effective are the effective settings (sources 1-3): nil when the raw
	// settings are not an object.
	Effective map[string]any
	// Values are sources 1-5 (without a values schema: Effective + hook values).
	Values map[string]any
}

// OK reports whether DP would accept the request.
func (r *Result) OK() bool { return len(r.Problems) == 0 }

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

// Severity of a verify finding.
type Severity string

// Finding severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one result of the openapi rules of `d8 package verify`.
type Finding struct {
	Rule       string // bilingual, advanced, enum, extensions; syntax, keywords (what DP loads but probably is a mistake)
	Severity   Severity
	File       string // e.g. openapi/settings.yaml
	SchemaPath string // JSON-pointer-like path inside the schema, e.g. /properties/storage
	Message    string
}
