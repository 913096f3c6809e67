package engine

import (
	"strings"
	"testing"
)

// TestLoad_NullPropertiesIsNoProperties: a bare `properties:` (YAML null)
// loads as no properties, as DP reads it; the object is still closed.
func TestLoad_NullPropertiesIsNoProperties(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, settings, doc string
		want                []string
	}{
		{"root properties null", "type: object\nproperties:\n", "{}", nil},
		{"root properties null rejects a field", "type: object\nproperties:\n", "a: 1", []string{"a|undeclared|additionalProperties"}},
		{"nested properties null", "type: object\nproperties:\n  o:\n    type: object\n    properties:\n", "o: {}", nil},
		{"nested properties null rejects a field", "type: object\nproperties:\n  o:\n    type: object\n    properties:\n", "o: {x: 1}", []string{"o.x|undeclared|additionalProperties"}},
		{"null property schema accepts anything", "type: object\nproperties:\n  a:\n", "a: [1, {b: 2}]", nil},
		{"additionalProperties null is unset, so closed", "type: object\nadditionalProperties:\nproperties:\n  a: {type: string}\n", "b: 1", []string{"b|undeclared|additionalProperties"}},
		{"other keywords null are absent", "type: object\nproperties:\n  a: {type: string, enum: , pattern: , minLength: , format: }\n", "a: x", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := loadSchemas(t, tc.settings, "")
			if got := check(t, p, tc.doc); !sameLines(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLoad_KeywordValuesDPIgnoresLoadAndEvaluateAsDP: keyword values that
// go-openapi loads (and ignores or reads otherwise) do not refuse the
// package, and the values are then checked as DP checks them.
func TestLoad_KeywordValuesDPIgnoresLoadAndEvaluateAsDP(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, field, doc string
		want             []string
	}{
		{"type bool rejects a boolean", "{type: bool}", "f: true", []string{"f|type|type"}},
		{"type bool rejects a string", "{type: bool}", "f: x", []string{"f|type|type"}},
		{"type bool rejects null", "{type: bool}", "f: null", []string{"f|type|type"}},
		{"type bool nullable admits null", "{type: bool, nullable: true}", "f: null", nil},
		{"type bool absent is fine", "{type: bool}", "{}", nil},
		{"unknown name beside a known one is ignored", "{type: [string, bool]}", "f: x", nil},
		{"unknown name beside a known one still checks the type", "{type: [string, bool]}", "f: true", []string{"f|type|type"}},
		{"items strings is ignored", "{type: array, items: strings}", "f: [1, x, {a: b}]", nil},
		{"items a boolean is ignored", "{type: array, items: true}", "f: [1]", nil},
		{"items ignored, the array type still checked", "{type: array, items: strings}", "f: x", []string{"f|type|type"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := "type: object\nproperties:\n  f: " + tc.field + "\n"
			p := loadSchemas(t, schema, "x-extend: {schema: settings.yaml}\ntype: object\nproperties:\n  internal: "+tc.field+"\n")
			if got := check(t, p, tc.doc); !sameLines(got, tc.want) {
				t.Fatalf("settings: got %v, want %v", got, tc.want)
			}
			// The same keyword in values.yaml (a hook's values) behaves alike.
			doc := yamlValue(t, strings.Replace(tc.doc, "f:", "internal:", 1))
			var want []string
			for _, w := range tc.want {
				want = append(want, strings.Replace(w, "f|", "internal|", 1))
			}
			if want == nil {
				want = []string{}
			}
			if got := renderProblems(p.values.validate(DocHookValues, doc)); !sameLines(got, want) {
				t.Fatalf("values: got %v, want %v", got, want)
			}
		})
	}
	p := loadSchemas(t, "type: object\nproperties:\n  f: {type: bool}\n", "")
	ps := p.settings.validate(DocSettings, map[string]any{"f": true})
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "bool") {
		t.Fatalf("message: %v", problemSummary(ps))
	}
}

// TestVerify_WhatDPToleratesIsAWarning: a duplicate key, a key read as a
// boolean and a keyword value DP ignores load, and Verify names each as a
// warning at its place.
func TestVerify_WhatDPToleratesIsAWarning(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"settings.yaml": `type: object
properties:
  mode: {type: string}
  mode: {type: string, enum: [A, B]}
  n: {type: string}
  empty:
    type: object
    properties:
`,
		"doc-ru-settings.yaml": "properties: {}\n",
		"values.yaml": `x-extend: {schema: settings.yaml}
type: object
properties:
  internal:
    type: object
    default: {}
    properties:
      enabled: {type: bool}
      names: {type: array, items: strings}
`,
	}
	fsys := pkgFS(files)
	if _, err := loadFS(fsys); err != nil {
		t.Fatalf("the package must load: %v", err)
	}
	fs, err := verify(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"syntax|warning|openapi/settings.yaml|/properties",
		"syntax|warning|openapi/settings.yaml|/properties",
		"keywords|warning|openapi/values.yaml|/properties/internal/properties/enabled/type",
		"keywords|warning|openapi/values.yaml|/properties/internal/properties/names/items",
	}
	if got := findingLines(fs); !sameLines(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	msgs := fs[0].Message + fs[1].Message
	if !strings.Contains(msgs, `duplicate key "mode" at line 4 (first at line 3)`) || !strings.Contains(msgs, `mapping key n at line 5 is read by DP (YAML 1.1) as "false"`) {
		t.Fatalf("messages: %q", msgs)
	}
}

// TestVerifyDir_LogShipperPackageLoadsWithWarnings: the log-shipper package
// of testdata (shaped like a real DP package) loads, and VerifyDir shows
// what DP tolerates in its values.yaml as warnings.
func TestVerifyDir_LogShipperPackageLoadsWithWarnings(t *testing.T) {
	t.Parallel()
	dir := "testdata/packages/logshipper"
	if _, err := LoadDir(dir); err != nil {
		t.Fatal(err)
	}
	fs, err := VerifyDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"syntax|warning|openapi/values.yaml|/properties/internal/properties",
		"keywords|warning|openapi/values.yaml|/properties/internal/properties/enabled/type",
		"keywords|warning|openapi/values.yaml|/properties/internal/properties/namespaces/items",
	}
	if got := findingLines(fs); !sameLines(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
