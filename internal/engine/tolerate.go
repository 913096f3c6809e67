package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// DP reads a schema file into go-openapi's spec.Schema, which is lenient
// where JSON Schema's meta-schema is strict: some keyword values that the
// compiler here would refuse load in DP, and DP then evaluates as if they
// were absent or harmless. tolerate rewrites those values in a parsed
// schema, in place, into what DP evaluates, so a package DP loads also loads
// here; it returns a note for each value that is probably a mistake, which
// Verify reports as a warning. Everything else that go-openapi refuses
// (`minimum: one`, `required: a`, `type: 5`, ...) stays a load error.
//
//   - A standard keyword whose value is null is absent (go-openapi leaves
//     the field unset): `properties:` with nothing under it is no properties,
//     `additionalProperties: null` is unset (so the object is closed). A
//     null sub-schema in properties, patternProperties, definitions or a
//     combinator list accepts anything. `default: null` is kept (defaulting
//     treats it as no default).
//   - type: names that are not JSON Schema types (`type: bool`) match no
//     value in go-openapi. Beside known names they are dropped; alone they
//     become typeMismatchKeyword, which rejects every value (null only when
//     nullable), as go-openapi does.
//   - items that is neither a schema nor a list of schemas (`items: strings`)
//     is ignored by go-openapi: it is removed.
//   - additionalProperties or additionalItems that is neither a boolean nor
//     a schema means "allowed" to go-openapi: it becomes true.
func tolerate(file string, root map[string]any, order keyOrder) []*SchemaError {
	t := &tolerator{file: file, order: order}
	t.node(root, "", 0)
	return t.notes
}

// typeMismatchKeyword holds the type names of a schema whose type names no
// JSON Schema type; see typeMismatchVocabulary.
const typeMismatchKeyword = "x-engine-unknown-type"

// nullableKeywords are the standard keywords a null value removes.
var nullableKeywords = []string{
	"properties", "patternProperties", "definitions", "dependencies", "required", "enum", "type",
	"items", "additionalProperties", "additionalItems", "allOf", "anyOf", "oneOf", "not",
	"format", "pattern", "title", "description", "nullable", "uniqueItems",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
}

var jsonSchemaTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true, "number": true, "object": true, "string": true}

type tolerator struct {
	file  string
	order keyOrder
	notes []*SchemaError
}

func (t *tolerator) note(ptr, format string, args ...any) {
	t.notes = append(t.notes, &SchemaError{File: t.file, SchemaPath: ptr, Message: fmt.Sprintf(format, args...)})
}

func (t *tolerator) node(n map[string]any, ptr string, depth int) {
	if depth > maxDepth {
		return
	}
	for _, kw := range nullableKeywords {
		if v, ok := n[kw]; ok && v == nil {
			delete(n, kw)
		}
	}
	for _, kw := range schemaMapKeywords {
		if m, ok := n[kw].(map[string]any); ok {
			for k, v := range m {
				if v == nil {
					m[k] = map[string]any{}
				}
			}
		}
	}
	for _, kw := range schemaListKeywords {
		if l, ok := n[kw].([]any); ok {
			for i, v := range l {
				if v == nil {
					l[i] = map[string]any{}
				}
			}
		}
	}
	t.typeNames(n, ptr)
	switch it := n["items"].(type) {
	case map[string]any, []any, nil:
	default:
		delete(n, "items")
		t.note(ptr+"/items", "items must be a schema or a list of schemas, got %s; DP ignores it, so the array items are not checked", describeValue(it))
	}
	for _, kw := range []string{"additionalProperties", "additionalItems"} {
		switch v := n[kw].(type) {
		case bool, map[string]any, nil:
		default:
			n[kw] = true
			t.note(ptr+"/"+kw, "%s must be a boolean or a schema, got %s; DP reads it as true (anything is allowed)", kw, describeValue(v))
		}
	}
	eachSubschema(n, t.order, func(_, sub string, child map[string]any) {
		t.node(child, ptr+sub, depth+1)
	})
}

// typeNames handles type names that are not JSON Schema types.
func (t *tolerator) typeNames(n map[string]any, ptr string) {
	var names []any
	switch v := n["type"].(type) {
	case string:
		names = []any{v}
	case []any:
		names = v
	default:
		return
	}
	var known, unknown []any
	for _, name := range names {
		s, ok := name.(string)
		if !ok {
			return // not a list of strings: DP refuses it too, the compiler says why
		}
		if jsonSchemaTypes[s] {
			known = append(known, s)
		} else {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) == 0 {
		return
	}
	quoted := make([]string, len(unknown))
	for i, u := range unknown {
		quoted[i] = fmt.Sprintf("%q", u)
	}
	what := strings.Join(quoted, ", ")
	switch {
	case len(known) == 1:
		n["type"] = known[0]
	case len(known) > 1:
		n["type"] = known
	default:
		delete(n, "type")
		n[typeMismatchKeyword] = unknown
		t.note(ptr+"/type", "type %s is not a JSON Schema type (array, boolean, integer, null, number, object, string); DP loads it, and then rejects every value given for this field", what)
		return
	}
	t.note(ptr+"/type", "type %s is not a JSON Schema type (array, boolean, integer, null, number, object, string); DP loads it and ignores it beside the other types", what)
}

// typeMismatchVocabulary compiles typeMismatchKeyword: the value is rejected
// as go-openapi's type validator rejects it (null passes only when the
// schema is nullable).
var typeMismatchVocabulary = &jsonschema.Vocabulary{
	URL: "urn:deckhouse:engine:unknown-type",
	Compile: func(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
		names, ok := obj[typeMismatchKeyword].([]any)
		if !ok {
			return nil, nil
		}
		ext := &typeMismatch{want: stringsIn(names)}
		ext.nullable, _ = obj["nullable"].(bool)
		return ext, nil
	},
}

type typeMismatch struct {
	want     []string
	nullable bool
}

func (m *typeMismatch) Validate(ctx *jsonschema.ValidatorContext, v any) {
	if v == nil && m.nullable {
		return
	}
	ctx.AddError(&typeMismatchKind{want: slices.Clone(m.want), got: schemaTypeOf(v)})
}

// typeMismatchKind is the error of typeMismatchKeyword, reported as a type
// problem.
type typeMismatchKind struct {
	want []string
	got  string
}

func (k *typeMismatchKind) KeywordPath() []string { return []string{"type"} }

func (k *typeMismatchKind) LocalizedString(*message.Printer) string {
	return fmt.Sprintf("must be %s, got %s", strings.Join(k.want, " or "), k.got)
}

// schemaTypeOf names the JSON Schema type of a value of the data model as
// jsonvalue.TypeName does, an integral number as "integer".
func schemaTypeOf(v any) string {
	switch x := v.(type) {
	case int, int64:
		return "integer"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
	}
	return jsonvalue.TypeName(v)
}
