package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles a prepared tree in DP's dialect: JSON Schema draft
// 4 as in OpenAPI v3.0 (boolean exclusiveMaximum/exclusiveMinimum), plus
// nullable, with DP's formats. The tree is not modified: the compiler gets a
// dialect copy (see dialectCopy) whose schema nodes sit at the same JSON
// pointers as in the tree, so an error's schema location is also a location
// in the tree.
func compileSchema(file string, tree map[string]any) (*jsonschema.Schema, error) {
	doc := dialectCopy(tree)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	registerFormats(c)
	c.RegisterVocabulary(typeMismatchVocabulary)
	// No schema may be fetched from outside: every $ref is inlined already.
	c.UseLoader(noLoader{})
	loc := schemaURL(file)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, &SchemaError{File: file, Message: "compiling the schema: " + err.Error()}
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, compileError(file, err)
	}
	return s, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %q: only local references are supported", url)
}

// schemaURL is the resource name under which a file's schema is compiled.
func schemaURL(file string) string {
	if file == "" {
		file = "schema"
	}
	return "file:///" + strings.TrimPrefix(file, "/")
}

// compileError turns a compiler error into a *SchemaError naming the place
// inside the schema.
func compileError(file string, err error) error {
	var sve *jsonschema.SchemaValidationError
	var leaf *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &leaf) {
		leaf = deepestCause(leaf)
		return &SchemaError{File: file, SchemaPath: pointerOf(leaf.InstanceLocation), Message: "invalid schema: " + leaf.ErrorKind.LocalizedString(printer)}
	}
	var ire *jsonschema.InvalidRegexError
	if errors.As(err, &ire) {
		return &SchemaError{File: file, SchemaPath: fragmentOf(ire.URL), Message: fmt.Sprintf("invalid regular expression %q: %v", ire.Regex, ire.Err)}
	}
	return &SchemaError{File: file, Message: "compiling the schema: " + err.Error()}
}

// deepestCause returns the leaf of a meta-schema error that lies deepest in
// the schema. Where the meta-schema allows alternatives (additionalProperties
// is a boolean or a schema, items a schema or a list), the first cause is
// the alternative not taken ("want boolean") at the keyword itself, while
// the real mistake is a keyword further down.
func deepestCause(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := e
	for _, c := range e.Causes {
		if d := deepestCause(c); best == e || len(d.InstanceLocation) > len(best.InstanceLocation) {
			best = d
		}
	}
	return best
}

func pointerOf(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

// fragmentOf returns the JSON pointer of a schema URL ("file:///x#/a/b" → "/a/b").
func fragmentOf(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[i+1:]
	}
	return ""
}

// dialectCopy returns a copy of a prepared tree rewritten for the compiler:
//   - $schema is dropped, so `http://json-schema.org/schema#` (found in real
//     packages) does not switch the dialect away from draft 4; a string `id`
//     is dropped too (draft 4 would treat it as a base URI; OpenAPI has no id);
//   - `nullable: true` adds "null" to the type;
//   - null is removed from enum lists: a null value never matches an enum;
//   - a name in `required` whose property declares a non-null default is
//     dropped: go-openapi's object validator, which DP uses, counts such an
//     absent property as present, because the default will create it; an
//     empty `required` list is dropped (draft 4's meta-schema rejects it);
//   - a format DP does not assert is dropped.
//
// Schema nodes keep their JSON pointers.
func dialectCopy(node map[string]any) map[string]any {
	out := make(map[string]any, len(node)+1)
	for k, v := range node {
		out[k] = v
	}
	delete(out, "$schema")
	if _, ok := out["id"].(string); ok {
		delete(out, "id")
	}
	if n, _ := out["nullable"].(bool); n {
		switch t := out["type"].(type) {
		case string:
			if t != "null" {
				out["type"] = []any{t, "null"}
			}
		case []any:
			if !hasType(out, "null") {
				out["type"] = append(append([]any(nil), t...), "null")
			}
		}
	}
	if e, ok := out["enum"].([]any); ok {
		kept := slices.DeleteFunc(slices.Clone(e), func(v any) bool { return v == nil })
		if len(kept) > 0 && len(kept) != len(e) {
			out["enum"] = kept
		}
	}
	if r, ok := out["required"].([]any); ok {
		if kept := requiredWithoutDefaults(r, node); len(kept) > 0 {
			out["required"] = kept
		} else {
			delete(out, "required")
		}
	}
	if f, ok := out["format"].(string); ok {
		if _, known := dpFormats[f]; !known {
			delete(out, "format")
		}
	}
	for _, kw := range []string{"properties", "patternProperties", "definitions", "dependencies"} {
		if m, ok := out[kw].(map[string]any); ok {
			cp := make(map[string]any, len(m))
			for k, v := range m {
				if sm, ok := v.(map[string]any); ok {
					cp[k] = dialectCopy(sm)
				} else {
					cp[k] = v
				}
			}
			out[kw] = cp
		}
	}
	for _, kw := range []string{"items", "allOf", "anyOf", "oneOf"} {
		if l, ok := out[kw].([]any); ok {
			cp := make([]any, len(l))
			for i, v := range l {
				if sm, ok := v.(map[string]any); ok {
					cp[i] = dialectCopy(sm)
				} else {
					cp[i] = v
				}
			}
			out[kw] = cp
		}
	}
	for _, kw := range []string{"items", "additionalProperties", "additionalItems", "not"} {
		if sm, ok := out[kw].(map[string]any); ok {
			out[kw] = dialectCopy(sm)
		}
	}
	return out
}

// requiredWithoutDefaults returns the names of required that node's
// properties do not give a non-null default.
func requiredWithoutDefaults(required []any, node map[string]any) []any {
	props, _ := node["properties"].(map[string]any)
	kept := make([]any, 0, len(required))
	for _, r := range required {
		if name, ok := r.(string); ok {
			if ps, ok := props[name].(map[string]any); ok && ps["default"] != nil {
				continue
			}
		}
		kept = append(kept, r)
	}
	return kept
}
