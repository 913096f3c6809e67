package engine

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
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

// reCamelCase matches enum values DP accepts as CamelCase: a capital letter
// or a digit first, then letters, digits and dots (for versions such as 1.29).
var reCamelCase = regexp.MustCompile(`^[A-Z0-9][A-Za-z0-9.]*$`)

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
		if !strings.HasSuffix(n, ".yaml") {
			continue
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
			add(ruleBilingual, SeverityError, n, "", fmt.Sprintf("missing Russian documentation file openapi/doc-ru-%s", n))
		}
		if strings.HasSuffix(n, "-tests.yaml") {
			continue
		}
		data, ok, err := readSchemaFile(fsys, n)
		if err != nil || !ok {
			msg := "cannot be read"
			if err != nil {
				msg = err.Error()
			}
			add(ruleSyntax, SeverityError, n, "", msg)
			continue
		}
		order := keyOrder{}
		doc, yamlNotes, err := parseDocumentNotes(openapiDir+"/"+n, data, order)
		root, isMap := doc.(map[string]any)
		if err == nil && !isMap {
			err = &SchemaError{File: openapiDir + "/" + n, Message: "the schema must be an object (a YAML mapping), got " + jsonTypeName(doc)}
		}
		if err != nil {
			add(ruleSyntax, SeverityError, n, "", err.Error())
			continue
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
		v := &verifier{file: n, order: order, add: add}
		v.node(root, "", 0, true)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.SchemaPath != b.SchemaPath {
			return a.SchemaPath < b.SchemaPath
		}
		return a.Rule < b.Rule
	})
	return out, nil
}

type verifier struct {
	file  string
	order keyOrder
	add   func(rule string, sev Severity, file, ptr, msg string)
}

// node checks one schema node; topField is true for the root's direct
// properties (and the root itself), where ui-advanced is allowed.
func (v *verifier) node(n map[string]any, ptr string, depth int, topLevel bool) {
	if depth > maxDepth {
		return
	}
	if _, ok := n["x-deckhouse-ui-advanced"]; ok && !topLevel {
		v.add(ruleAdvanced, SeverityError, v.file, ptr, "x-deckhouse-ui-advanced is allowed only on top-level fields")
	}
	if e, ok := n["enum"].([]any); ok {
		for _, item := range e {
			if s, ok := item.(string); ok && s != "" && !reCamelCase.MatchString(s) {
				v.add(ruleEnum, SeverityWarning, v.file, ptr+"/enum", fmt.Sprintf("enum value %q is not in CamelCase", s))
			}
		}
	}
	v.extensions(n, ptr)
	eachSubschema(n, v.order, func(kw, sub string, child map[string]any) {
		v.node(child, ptr+sub, depth+1, ptr == "" && kw == "properties")
	})
}

func (v *verifier) extensions(n map[string]any, ptr string) {
	bad := func(key, msg string) {
		v.add(ruleExtensions, SeverityError, v.file, ptr+"/"+key, msg)
	}
	for _, k := range v.order.keys(n) {
		if !strings.HasPrefix(k, "x-deckhouse-") {
			continue
		}
		val := n[k]
		switch k {
		case extGrantable:
			if s, ok := val.(string); !ok || strings.TrimSpace(s) == "" {
				bad(k, k+" must be a non-empty string")
			} else if !isStringField(n) {
				bad(k, k+" is allowed only on a field of type: string")
			}
		case extValidations:
			l, ok := val.([]any)
			if !ok {
				bad(k, k+" must be a list of {expression, message}")
				continue
			}
			for i, item := range l {
				m, _ := item.(map[string]any)
				e, _ := m["expression"].(string)
				msg, _ := m["message"].(string)
				if e == "" || msg == "" {
					bad(fmt.Sprintf("%s/%d", k, i), "a validation rule must be an object with non-empty string expression and message")
				}
			}
		case extResourceName:
			m, ok := val.(map[string]any)
			av, _ := m["apiVersion"].(string)
			kd, _ := m["kind"].(string)
			if !ok || av == "" || kd == "" {
				bad(k, k+" must be an object with apiVersion and kind")
			}
		case "x-deckhouse-ui-advanced", extImmutable:
			if _, ok := val.(bool); !ok {
				bad(k, k+" must be a boolean")
			}
		case "x-deckhouse-ui-order":
			if !isInteger(val) {
				bad(k, k+" must be an integer")
			}
		case "x-deckhouse-ui-group", extUIValidationMessage:
			if _, ok := val.(string); !ok {
				bad(k, k+" must be a string")
			}
		}
	}
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
