package engine

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// deepYAMLBlock nests n block sequences on one line: "- - - ... x".
func deepYAMLBlock(n int) string {
	return "type: object\nx-deep:\n  " + strings.Repeat("- ", n) + "x\n"
}

const aliasBomb = `type: object
x-a: &a [x, x, x, x, x, x, x, x, x, x]
x-b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
x-c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
x-d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
x-e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
x-f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
x-g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
x-h: [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
`

func TestLoad_BadInputIsAClearError(t *testing.T) {
	t.Parallel()
	type files = map[string]string
	s := func(body string) files { return files{"settings.yaml": body} }
	sv := func(settings, values string) files { return files{"settings.yaml": settings, "values.yaml": values} }
	cases := []struct {
		name  string
		files files
		noDir bool
		want  string
	}{
		{"missing openapi dir", nil, true, "no readable openapi/ directory"},
		{"neither settings file", files{"values.yaml": "type: object"}, false, "neither openapi/settings.yaml nor openapi/config-values.yaml"},
		{"empty settings file", s(""), false, "openapi/settings.yaml: file is empty"},
		{"malformed YAML", s("type: object\nproperties: [a\n"), false, "openapi/settings.yaml: malformed YAML"},
		{"bad indentation", s("type: object\n properties:\nfoo"), false, "malformed YAML"},
		{"tab indentation", s("type: object\nproperties:\n\ta: {}\n"), false, "malformed YAML"},
		{"two documents", s("type: object\n---\ntype: object\n"), false, "more than one YAML document"},
		{"alias bomb", s(aliasBomb), false, "excessive aliasing"},
		{"undefined alias", s("type: object\nproperties: *nope\n"), false, "malformed YAML"},
		{"file over 1 MiB", s("type: object\nx-pad: '" + strings.Repeat("a", 1<<20) + "'\n"), false, "openapi/settings.yaml: file is larger than the limit of 1048576 bytes"},
		{"values over 1 MiB", sv("type: object", "type: object\nx-pad: '"+strings.Repeat("a", 1<<20)+"'\n"), false, "openapi/values.yaml: file is larger than the limit"},
		{"10000-level YAML block nesting", s(deepYAMLBlock(10000)), false, "nesting deeper than"},
		{"10000-level YAML flow nesting", s("type: object\nx-deep: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000)), false, "nesting deeper than"},
		{"10000-level JSON nesting", s(`{"type": "object", "x": ` + strings.Repeat(`{"a": `, 10000) + "1" + strings.Repeat("}", 10000) + "}"), false, "nesting deeper than"},
		{"null key", s("type: object\n~: 1\n"), false, "is not a string"},
		{"complex key", s("type: object\n? [a, b]\n: 1\n"), false, "is not a string"},
		{"invalid !!binary", s("type: object\nx-b: !!binary '#'\n"), false, "invalid !!binary value at line 2"},
		{"root is a list", s("- type: object\n"), false, "the schema must be an object"},
		{"root is a scalar", s("hello"), false, "the schema must be an object"},
		{"values root is a list", sv("type: object", "[1]"), false, "openapi/values.yaml: the schema must be an object"},
		{"merge of a scalar", s("type: object\nproperties:\n  a:\n    <<: 5\n"), false, "merge key << at line 4"},
		{"unsupported tag", s("type: !!set {a}\n"), false, ""},
		{"cyclic $ref", s("definitions:\n  a: {$ref: '#/definitions/b'}\n  b: {$ref: '#/definitions/a'}\ntype: object\nproperties:\n  x: {$ref: '#/definitions/a'}\n"), false, `is cyclic (it refers back to itself through its target) without any schema in between`},
		{"dangling $ref", s("type: object\nproperties:\n  x: {$ref: '#/definitions/missing'}\n"), false, `at /properties/x: $ref "#/definitions/missing" is dangling`},
		{"non-local $ref", s("type: object\nproperties:\n  x: {$ref: 'other.yaml#/a'}\n"), false, `$ref "other.yaml#/a" is not local`},
		{"$ref not a string", s("type: object\nproperties:\n  x: {$ref: 5}\n"), false, "$ref must be a string"},
		{"$ref to a scalar", s("type: object\nx-n: 5\nproperties:\n  x: {$ref: '#/x-n'}\n"), false, "not a schema object"},
		{"ref bomb", s(refBomb()), false, "when $refs are inlined"},
		{"x-extend not an object", sv("type: object", "x-extend: settings.yaml\ntype: object\n"), false, "openapi/values.yaml at /x-extend: x-extend must be an object"},
		{"x-extend unknown target", sv("type: object", "x-extend: {schema: other.yaml}\ntype: object\n"), false, `x-extend.schema "other.yaml" is not the settings schema`},
		{"x-extend without schema", sv("type: object", "x-extend: {}\ntype: object\n"), false, "x-extend.schema must name the settings schema"},
		{"type a number", s("type: object\nproperties:\n  a: {type: 5}\n"), false, "openapi/settings.yaml at /properties/a/type: type must be a string or a list of strings, got number: DP will not publish"},
		{"type list of numbers", s("type: object\nproperties:\n  a: {type: [1]}\n"), false, "/properties/a/type"},
		{"invalid keyword under additionalProperties", s("type: object\nproperties:\n  a: {type: object, additionalProperties: {type: string, minLength: x}}\n"), false, "at /properties/a/additionalProperties/minLength: minLength must be an integer, got string: DP will not publish"},
		{"invalid keyword deep under additionalProperties", s("type: object\nadditionalProperties:\n  type: object\n  properties:\n    b: {maxItems: []}\n"), false, "at /additionalProperties/properties/b/maxItems: maxItems must be an integer, got array: DP will not publish"},
		{"invalid keyword under items", s("type: object\nproperties:\n  a: {type: array, items: {type: string, pattern: 5}}\n"), false, "at /properties/a/items/pattern: pattern must be a string, got number: DP will not publish"},
		{"property schema a string", s("type: object\nproperties:\n  a: string\n"), false, "at /properties/a: must be a schema (an object), got string: DP will not publish"},
		{"invalid regex", s("type: object\nproperties:\n  a: {type: string, pattern: '([a-z'}\n"), false, "/properties/a/pattern"},
		{"minimum not a number", s("type: object\nproperties:\n  a: {type: integer, minimum: one}\n"), false, "at /properties/a/minimum: minimum must be a number, got string: DP will not publish"},
		{"required not a list", s("type: object\nrequired: a\n"), false, "at /required: required must be a list of strings, got string: DP will not publish"},
		{"properties not an object", s("type: object\nproperties: [a]\n"), false, "at /properties: properties must be a map of schemas, got array: DP will not publish"},
		{"grantable on integer field", s("type: object\nproperties:\n  sc: {type: integer, x-deckhouse-grantable-resource: storageclasses}\n"), false, "x-deckhouse-grantable-resource is allowed only on a field of type: string"},
		{"grantable on type-less field", s("type: object\nproperties:\n  sc: {x-deckhouse-grantable-resource: storageclasses}\n"), false, "this field has no type"},
		{"grantable not a string", s("type: object\nproperties:\n  sc: {type: string, x-deckhouse-grantable-resource: [a]}\n"), false, "x-deckhouse-grantable-resource must be a string, got array: DP will not publish"},
		{"grantable empty", s("type: object\nproperties:\n  sc: {type: string, x-deckhouse-grantable-resource: ''}\n"), false, "must be a non-empty string"},
		{"ui-resource-name without kind", s("type: object\nproperties:\n  s: {type: string, x-deckhouse-ui-resource-name: {apiVersion: v1}}\n"), false, "x-deckhouse-ui-resource-name must be an object with string apiVersion and kind"},
		{"ui-resource-name bad selector", s("type: object\nproperties:\n  s: {type: string, x-deckhouse-ui-resource-name: {apiVersion: v1, kind: Secret, labelSelector: x}}\n"), false, "labelSelector must be an object, got string: DP will not publish"},
		{"validations not a list", s("type: object\nx-deckhouse-validations: {expression: 'true', message: m}\n"), false, "x-deckhouse-validations must be a list"},
		{"validation without message", s("type: object\nx-deckhouse-validations:\n  - expression: 'true'\n"), false, "needs a non-empty string message"},
		{"validation with kubernetes rule key", s("type: object\nx-deckhouse-validations:\n  - rule: 'true'\n    message: m\n"), false, `"rule" is not used by DP`},
		{"invalid CEL expression", s("type: object\nproperties:\n  a:\n    type: object\n    x-deckhouse-validations:\n      - expression: 'self.a >'\n        message: broken\n"), false, `openapi/settings.yaml at /properties/a/x-deckhouse-validations/0: CEL expression "self.a >"`},
		{"CEL expression returning a string", s("type: object\nx-deckhouse-validations:\n  - expression: \"'text'\"\n    message: m\n"), false, "must return a bool"},
		{"invalid CEL in values", sv("type: object", "type: object\nx-deckhouse-validations:\n  - expression: 'self.'\n    message: m\n"), false, `openapi/values.yaml at /x-deckhouse-validations/0: CEL expression "self."`},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d bad inputs", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var fsys fstest.MapFS
			if tc.noDir {
				fsys = fstest.MapFS{"README.md": &fstest.MapFile{Data: []byte("x")}}
			} else {
				fsys = pkgFS(tc.files)
			}
			p, err := loadFS(fsys)
			if err == nil {
				t.Fatalf("loaded %v, want an error containing %q", p != nil, tc.want)
			}
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SchemaError: %v", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err.Error(), tc.want)
			}
		})
	}
}

// refBomb builds definitions where each level refers ten times to the next.
func refBomb() string {
	var b strings.Builder
	b.WriteString("definitions:\n")
	for i := 0; i < 8; i++ {
		b.WriteString("  d" + string(rune('0'+i)) + ":\n    type: object\n    properties:\n")
		for j := 0; j < 10; j++ {
			b.WriteString("      p" + string(rune('0'+j)) + ": {$ref: '#/definitions/d" + string(rune('0'+i+1)) + "'}\n")
		}
	}
	b.WriteString("  d8: {type: string}\ntype: object\nproperties:\n  root: {$ref: '#/definitions/d0'}\n")
	return b.String()
}

func TestPublished_BadInputIsAClearError(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, settings, values, want string }{
		{"empty settings", "", "", "settingsSchema: file is empty"},
		{"malformed JSON", `{"type": "object",`, "", "settingsSchema: malformed YAML"},
		{"settings not an object", `[1, 2]`, "", "settingsSchema: the schema must be an object"},
		{"10000-level JSON", strings.Repeat("[", 10000) + strings.Repeat("]", 10000), "", "nesting deeper than"},
		{"values malformed", `{"type": "object"}`, `{"type": `, "valuesSchema: malformed YAML"},
		{"over 1 MiB", `{"type": "object", "description": "` + strings.Repeat("a", 1<<20) + `"}`, "", "larger than the limit"},
	}
	for _, tc := range cases {
		_, err := LoadPublished([]byte(tc.settings), []byte(tc.values))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
