package engine

import "github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"

// This file holds the exported types of one evaluation: Request, Result,
// and what they carry (Catalog, Unknown, Skipped, Switch).

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
type Unknown = jsonvalue.Unknown

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
	// Previous are the settings last applied, the old side of the
	// immutability check and of enum switches: DP's
	// status.lastAppliedConfiguration, or the old spec.settings when that
	// is empty. The settings schema defaults are applied to them in every
	// case (as DP's webhook does), so raw and effective settings both work.
	// When HasPrevious is true the evaluation is an update: oldSelf rules
	// run (unless VersionChange), immutable fields are checked, enum
	// switches are detected.
	Previous    any
	HasPrevious bool
	// PreviousIsRaw says Previous are raw user settings. Defaults are
	// applied to Previous in every case, so it changes nothing; it is kept
	// so callers can say what they pass.
	PreviousIsRaw bool
	// PreviousRaw are the previous settings as the user wrote them (DP's
	// stored raw settings, no defaults): oldSelf is bound to them, so a key
	// the user did not write is missing in oldSelf. With HasPreviousRaw
	// false oldSelf is bound to Previous as given (without defaults).
	PreviousRaw    any
	HasPreviousRaw bool
	// Catalog is the project's grant catalog (the engine does no I/O).
	Catalog Catalog
	// HookValues are values set by hooks (source 5), validated against the
	// values schema including its CEL rules. nil means none.
	HookValues any
	// AllowDestructiveSwitch acknowledges destructive enum switches.
	AllowDestructiveSwitch bool
	// VersionChange says the update does not keep an installed version (the
	// Application's spec.packageVersion differs from the installed
	// status.currentVersion.version, or nothing is installed: DP's webhook
	// runs the oldSelf rules only while status.currentVersion exists and
	// equals spec.packageVersion). DP skips every rule that references
	// oldSelf then, in its webhook and when it applies the settings: the
	// stored settings that bind oldSelf belong to the running version. So
	// do Evaluate: those rules are neither run nor listed in
	// Result.Skipped. The new version's schema, the rules without oldSelf,
	// grants, immutability (against Previous) and enum switches still run.
	// It changes nothing without HasPrevious.
	VersionChange bool
}

// Result is the verdict and the computed documents.
type Result struct {
	// Problems lists every reason of rejection, sorted by document, path, kind.
	Problems []*Problem
	// Skipped lists every check not run because it depends on an Unknown
	// value, sorted by document, path, check, rule and unknown path, without
	// duplicates; nil when the request holds no Unknown.
	Skipped []Skipped
	// Warnings lists what DP's code may reject although the specification
	// accepts it (a grantable value outside the available names of a
	// catalog without a default); sorted like Problems.
	Warnings []*Problem
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
