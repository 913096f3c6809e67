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
	Path Path // path of the discriminator field, e.g. storage.mode
	// From and To are the discriminator's old and new values, as strings.
	// They are instance values (each is also one of the schema's enum or
	// `to` values, but callers that route settings to sensitive storage
	// should treat them as values); problem messages never include them.
	From     string
	To       string
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

// Unknown stands for a value that is not known yet, for example a Terraform
// value known only after apply. The value Unknown{} may stand anywhere in
// Request.Settings (including the root), Request.HookValues and
// Request.Previous, for a leaf or for a whole subtree.
//
// An unknown value is "any value": every check whose outcome does not
// depend on it still runs and reports its problems (an undeclared sibling
// key, a wrong type next to it, a CEL rule on another subtree, an immutable
// field changed elsewhere, a required key missing from a known object; a
// key whose value is unknown counts as present). Every check whose outcome
// depends on it is not run and is listed in Result.Skipped instead:
//   - the schema keywords of the unknown value itself, and enum, uniqueItems,
//     not, oneOf and anyOf of the objects and arrays that contain it;
//   - every CEL rule whose self (or oldSelf) contains an unknown value, the
//     rules below an unknown value, and the rules of a oneOf/anyOf branch
//     whose enum discriminator is unknown;
//   - a grantable field whose value is unknown, or that lies below one;
//   - an immutable field whose new or previous value is unknown;
//   - an enum switch whose discriminator is unknown (on update).
//
// Result.Effective and Result.Values keep Unknown{} where the value is
// unknown: no default fills a key whose value is unknown, and no default is
// applied inside an unknown object. When the settings root itself is
// unknown, Effective and Values are nil and every check is skipped.
type Unknown struct{}

// Skipped is one check that was not run because its outcome depends on an
// Unknown value.
type Skipped struct {
	// Document holds the unknown value (settings, hook_values, or
	// previous_settings for an unknown previous value).
	Document Document
	// Path is where the check applies. For a check below an unknown array
	// or map, whose element paths are not known, it is the deepest known
	// path (the unknown container).
	Path Path
	// Check is what was not checked, in words: "schema", "CEL rule",
	// "grant", "immutability" or "enum switch".
	Check string
	// Rule is the schema keyword (for "schema", e.g. "format", "oneOf"), the
	// CEL expression (for "CEL rule"), or the extension name.
	Rule string
	// Unknown is the path of the unknown value the check depends on (the
	// first one, when several are).
	Unknown Path
}

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
	// Skipped lists every check not run because it depends on an Unknown
	// value, sorted by document, path, check, rule and unknown path, without
	// duplicates; nil when the request holds no Unknown.
	Skipped []Skipped
	// Switches lists every detected enum switch (all impacts). A destructive
	// one without acknowledgement also appears in Problems as KindSwitch.
	Switches []Switch
	// Effective are the effective settings (sources 1-3): nil when the raw
	// settings are not an object (or are Unknown); Unknown{} where unknown.
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
