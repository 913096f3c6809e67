package engine

import (
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// Verify rule names.
const (
	ruleBilingual  = "bilingual"
	ruleAdvanced   = "advanced"
	ruleEnum       = "enum"
	ruleExtensions = "extensions"
	ruleSyntax     = "syntax"   // a schema file that cannot be parsed (error), or YAML DP reads other than it looks (warning)
	ruleKeywords   = "keywords" // a keyword value DP loads but ignores or reads otherwise (warning)
	rulePublish    = "publish"  // a value DP's typed decode refuses: the version is never published (error)
)

// verify runs the openapi rules of `d8 package verify` on the package at fsys.
// It also reports, as warnings, what DP loads although it is probably a
// mistake, and what the engine then evaluates as DP does: a duplicate key or
// a key YAML 1.1 reads as a boolean (rule syntax), and a keyword value DP
// ignores or reads otherwise, such as `type: bool` or `items: strings` (rule
// keywords). Findings are sorted by file, schema path and rule. The error is
// reserved for a package whose openapi/ folder cannot be read at all.
func verify(fsys fs.FS) ([]Finding, error) {
	if fsys == nil {
		return nil, &SchemaError{File: openapiDir + "/", Message: "no package file system given"}
	}
	entries, err := fs.ReadDir(fsys, openapiDir)
	if err != nil {
		return nil, &SchemaError{File: openapiDir + "/", Message: "the package has no readable openapi/ directory: " + errText(err)}
	}
	present := map[string]bool{}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		if !strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml") {
			continue // d8 reads .yaml and .yml schemas
		}
		present[n] = true
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Finding
	add := func(rule string, sev Severity, file, ptr, msg string) {
		out = append(out, Finding{Rule: rule, Severity: sev, File: openapiDir + "/" + file, SchemaPath: ptr, Message: msg})
	}
	for _, n := range names {
		isDoc := strings.HasPrefix(n, "doc-ru-")
		if isDoc {
			base := strings.TrimPrefix(n, "doc-ru-")
			if !present[base] {
				add(ruleBilingual, SeverityError, n, "", fmt.Sprintf("%s has no base file openapi/%s", n, base))
			}
			continue
		}
		if n != valuesYAML && !strings.HasSuffix(n, "-tests.yaml") && !present["doc-ru-"+n] {
			// as d8: only -tests.yaml fixtures need no translation
			add(ruleBilingual, SeverityError, n, "", fmt.Sprintf("missing Russian documentation file openapi/doc-ru-%s", n))
		}
		if !strings.HasSuffix(n, "-tests.yaml") {
			verifySchema(fsys, n, add)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.SchemaPath, b.SchemaPath), cmp.Compare(a.Rule, b.Rule))
	})
	return out, nil
}

// verifySchema runs the rules that read one schema file n (not a fixture).
func verifySchema(fsys fs.FS, n string, add func(rule string, sev Severity, file, ptr, msg string)) {
	data, ok, err := readSchemaFile(fsys, n)
	if err != nil || !ok {
		msg := "cannot be read"
		if err != nil {
			msg = err.Error()
		}
		add(ruleSyntax, SeverityError, n, "", msg)
		return
	}
	order := keyOrder{}
	doc, yamlNotes, err := parseDocumentNotes(openapiDir+"/"+n, data, order)
	root, isMap := doc.(map[string]any)
	if err == nil && !isMap {
		err = &SchemaError{File: openapiDir + "/" + n, Message: "the schema must be an object (a YAML mapping), got " + jsonvalue.TypeName(doc)}
	}
	if err != nil {
		sev := SeverityError
		if !strings.HasSuffix(n, ".yaml") {
			sev = SeverityWarning // DP never loads it; d8's enum rule warns
		}
		add(ruleSyntax, sev, n, "", err.Error())
		return
	}
	for _, f := range enumFindings(root, "") {
		add(ruleEnum, SeverityWarning, n, f.ptr, f.msg)
	}
	if !strings.HasSuffix(n, ".yaml") {
		return // DP loads .yaml schemas only: the DP rules below do not apply
	}
	for _, nt := range yamlNotes {
		add(ruleSyntax, SeverityWarning, n, nt.SchemaPath, nt.Message)
	}
	for _, se := range publishErrors(openapiDir+"/"+n, root) {
		add(rulePublish, SeverityError, n, se.SchemaPath, se.Message)
	}
	for _, nt := range tolerate(openapiDir+"/"+n, root, order) {
		add(ruleKeywords, SeverityWarning, n, nt.SchemaPath, nt.Message)
	}
	v := &verifier{file: n, order: order, add: add, advanced: n == settingsYAML}
	v.node(root, "", verifyAt{alongProps: true})
}

type verifier struct {
	file     string
	order    keyOrder
	add      func(rule string, sev Severity, file, ptr, msg string)
	advanced bool // the file is settings.yaml, the one d8's advanced rule reads
}

// verifyAt is where a node sits: depth counts nesting (the guard), level
// the property levels from the root as d8's advanced rule counts them (-1
// where it does not look), field the property names and alongProps whether
// the node is reached from the root through properties only.
type verifyAt struct {
	depth, level int
	field        Path
	alongProps   bool
}

// advancedLevels is how many property levels each keyword adds in d8's
// advanced rule: a combinator branch constrains the same object, a
// definition stands in for a top-level setting. Keywords it does not
// descend into are absent.
var advancedLevels = map[string]int{
	"properties": 1, "patternProperties": 1, "definitions": 1,
	"items": 1, "additionalProperties": 1,
	"allOf": 0, "anyOf": 0, "oneOf": 0, "not": 0,
}

// node checks one schema node and the schemas below it.
func (v *verifier) node(n map[string]any, ptr string, at verifyAt) {
	if at.depth > maxDepth {
		return
	}
	if _, ok := n[extUIAdvanced]; ok && v.advanced && at.level > 1 {
		v.add(ruleAdvanced, SeverityError, v.file, ptr, extUIAdvanced+" is allowed only on top-level fields")
	}
	v.extensions(n, ptr, extSite{node: n, field: at.field, alongProps: at.alongProps && at.depth > 0})
	eachSubschema(n, v.order, func(kw, sub string, child map[string]any) {
		next := verifyAt{depth: at.depth + 1, level: -1, field: at.field, alongProps: at.alongProps && kw == "properties"}
		if d, ok := advancedLevels[kw]; ok && at.level >= 0 {
			next.level = at.level + d
		}
		if kw == "properties" {
			next.field = at.field.Key(unescapePointer(sub[len("/properties/"):]))
		}
		v.node(child, ptr+sub, next)
	})
}

// extensions checks the x-deckhouse-* keys of a node against the table: a
// value its check refuses is an error, an unknown key a warning (DP's
// publish drops it).
func (v *verifier) extensions(n map[string]any, ptr string, site extSite) {
	for _, k := range v.order.keys(n) {
		if !strings.HasPrefix(k, extensionPrefix) {
			continue
		}
		e, known := extensionNamed(k)
		if !known {
			msg := "unknown extension " + k + ": DP does not know it and its publish drops it"
			if c := closestExtension(k); c != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", c)
			}
			v.add(ruleExtensions, SeverityWarning, v.file, ptr+"/"+escapePointer(k), msg)
			continue
		}
		if at, msg := e.check(n[k], site); msg != "" {
			v.add(ruleExtensions, SeverityError, v.file, ptr+"/"+escapePointer(k)+at, extensionMessage(k, at, msg))
		}
	}
}

type enumFinding struct{ ptr, msg string }

// enumFindings lists the string enum values that break d8's convention,
// wherever a key enum holds a list (d8 walks the whole document).
func enumFindings(n map[string]any, ptr string) []enumFinding {
	var out []enumFinding
	for _, k := range sortedKeys(n) {
		kp := ptr + "/" + escapePointer(k)
		switch x := n[k].(type) {
		case []any:
			if k == "enum" {
				out = append(out, enumValueFindings(kp, x)...)
				continue
			}
			for i, item := range x {
				if c, ok := item.(map[string]any); ok {
					out = append(out, enumFindings(c, kp+"/"+strconv.Itoa(i))...)
				}
			}
		case map[string]any:
			out = append(out, enumFindings(x, kp)...)
		}
	}
	return out
}

// enumValueFindings lists the string values of the enum at ptr that break
// d8's convention.
func enumValueFindings(ptr string, values []any) []enumFinding {
	var out []enumFinding
	for _, item := range values {
		if s, ok := item.(string); ok {
			if why := enumBreach(s); why != "" {
				out = append(out, enumFinding{ptr, fmt.Sprintf("enum value %q is not in CamelCase: it %s", s, why)})
			}
		}
	}
	return out
}

// enumBreach is d8's enum convention: a value that starts with a letter
// starts with a capital one, and holds only letters, digits and dots that
// follow a digit (versions such as 1.29).
func enumBreach(s string) string {
	rs := []rune(s)
	if len(rs) == 0 {
		return ""
	}
	if unicode.IsLetter(rs[0]) && !unicode.IsUpper(rs[0]) {
		return "starts with a lower-case letter"
	}
	for i, r := range rs {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || (r == '.' && i > 0 && unicode.IsNumber(rs[i-1])) {
			continue
		}
		return "holds a character other than letters, digits and a dot after a digit"
	}
	return ""
}

func isInteger(v any) bool {
	switch x := v.(type) {
	case int64, int:
		return true
	case float64:
		return x == float64(int64(x))
	}
	return false
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
