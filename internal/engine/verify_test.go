package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func findingLines(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s|%s|%s|%s", f.Rule, f.Severity, f.File, f.SchemaPath))
	}
	return out
}

func TestVerify_Rules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"clean package", map[string]string{
			"settings.yaml":        "type: object\nproperties:\n  mode: {type: string, enum: [Internal, External], x-deckhouse-ui-advanced: true}\n",
			"doc-ru-settings.yaml": "properties: {}", "values.yaml": "type: object", "openapi-case-tests.yaml": "positive: {}",
		}, nil},
		{"missing doc-ru is a finding", map[string]string{"settings.yaml": "type: object"},
			[]string{"bilingual|error|openapi/settings.yaml|"}},
		{"doc-ru without base", map[string]string{"settings.yaml": "type: object", "doc-ru-settings.yaml": "{}", "doc-ru-other.yaml": "{}"},
			[]string{"bilingual|error|openapi/doc-ru-other.yaml|"}},
		{"legacy config-values needs doc-ru", map[string]string{"config-values.yaml": "type: object", "doc-ru-config-values.yaml": "{}"}, nil},
		{"advanced only on top-level fields", map[string]string{"doc-ru-settings.yaml": "{}",
			"settings.yaml": "type: object\nproperties:\n  a:\n    type: object\n    properties:\n      b: {type: string, x-deckhouse-ui-advanced: true}\n"},
			[]string{"advanced|error|openapi/settings.yaml|/properties/a/properties/b"}},
		{"enum not CamelCase is a warning", map[string]string{"doc-ru-settings.yaml": "{}",
			"settings.yaml": "type: object\nproperties:\n  m: {type: string, enum: [Good, bad-value, 1.29]}\n"},
			[]string{"enum|warning|openapi/settings.yaml|/properties/m/enum"}},
		{"extension value types", map[string]string{"doc-ru-settings.yaml": "{}", "settings.yaml": `
type: object
properties:
  a: {type: integer, x-deckhouse-grantable-resource: storageclasses}
  b: {type: string, x-deckhouse-immutable: "yes"}
  c: {type: string, x-deckhouse-ui-order: first}
  d: {type: string, x-deckhouse-ui-group: 5}
  e: {type: string, x-deckhouse-ui-resource-name: {kind: Secret}}
  f: {type: string, x-deckhouse-ui-validation-message: [x]}
  g: {type: object, x-deckhouse-validations: [{expression: "true"}]}
  h: {type: string, x-deckhouse-ui-advanced: 1}
`}, []string{
			"extensions|error|openapi/settings.yaml|/properties/a/x-deckhouse-grantable-resource",
			"extensions|error|openapi/settings.yaml|/properties/b/x-deckhouse-immutable",
			"publish|error|openapi/settings.yaml|/properties/b/x-deckhouse-immutable",
			"extensions|error|openapi/settings.yaml|/properties/c/x-deckhouse-ui-order",
			"publish|error|openapi/settings.yaml|/properties/c/x-deckhouse-ui-order",
			"extensions|error|openapi/settings.yaml|/properties/d/x-deckhouse-ui-group",
			"publish|error|openapi/settings.yaml|/properties/d/x-deckhouse-ui-group",
			"extensions|error|openapi/settings.yaml|/properties/e/x-deckhouse-ui-resource-name",
			"extensions|error|openapi/settings.yaml|/properties/f/x-deckhouse-ui-validation-message",
			"publish|error|openapi/settings.yaml|/properties/f/x-deckhouse-ui-validation-message",
			"extensions|error|openapi/settings.yaml|/properties/g/x-deckhouse-validations/0",
			"extensions|error|openapi/settings.yaml|/properties/h/x-deckhouse-ui-advanced",
			"publish|error|openapi/settings.yaml|/properties/h/x-deckhouse-ui-advanced",
		}},
		// d8's newest rules (deckhouse-cli, internal/packagecmd/.../openapi/rules).
		{"advanced counts property levels as d8 does", map[string]string{"doc-ru-settings.yaml": "{}", "settings.yaml": `
type: object
oneOf:
- properties:
    a: {type: string, x-deckhouse-ui-advanced: true}
definitions:
  d:
    type: object
    x-deckhouse-ui-advanced: true
    properties:
      e: {type: string, x-deckhouse-ui-advanced: true}
properties:
  m:
    type: array
    items: {type: string, x-deckhouse-ui-advanced: true}
`}, []string{
			"advanced|error|openapi/settings.yaml|/definitions/d/properties/e",
			"advanced|error|openapi/settings.yaml|/properties/m/items",
		}},
		{"advanced reads settings.yaml only", map[string]string{"doc-ru-config-values.yaml": "{}",
			"config-values.yaml": "type: object\nproperties:\n  a:\n    type: object\n    properties:\n      b: {type: string, x-deckhouse-ui-advanced: true}\n",
			"values.yaml":        "type: object\nproperties:\n  a:\n    type: object\n    properties:\n      b: {type: string, x-deckhouse-ui-advanced: true}\n"},
			nil},
		{"an unknown x-deckhouse key is a warning", map[string]string{"doc-ru-settings.yaml": "{}",
			"settings.yaml": "type: object\nproperties:\n  a: {type: string, x-deckhouse-ui-ordr: 1}\n"},
			[]string{"extensions|warning|openapi/settings.yaml|/properties/a/x-deckhouse-ui-ordr"}},
		{"a grant on a type list with string is accepted, as the loader and DP accept it", map[string]string{"doc-ru-settings.yaml": "{}",
			"settings.yaml": "type: object\nproperties:\n  a: {type: [string, integer], x-deckhouse-grantable-resource: storageclasses}\n"},
			nil},
		{".yml schemas need a translation and follow the enum convention", map[string]string{
			"extra.yml": "type: object\nproperties:\n  m: {type: string, enum: [lower]}\n"},
			[]string{"bilingual|error|openapi/extra.yml|", "enum|warning|openapi/extra.yml|/properties/m/enum"}},
		{"enum values as d8 judges them", map[string]string{"doc-ru-settings.yaml": "{}", "settings.yaml": `
type: object
properties:
  good: {type: string, enum: [Good, "1.29", "1x", "V1.2", "Ünter", ""]}
  dot: {type: string, enum: [A.B]}
  lower: {type: string, enum: [v1]}
  dash: {type: string, enum: [Bad-Value]}
  under: {type: string, enum: [_Hidden]}
`}, []string{
			"enum|warning|openapi/settings.yaml|/properties/dash/enum",
			"enum|warning|openapi/settings.yaml|/properties/dot/enum",
			"enum|warning|openapi/settings.yaml|/properties/lower/enum",
			"enum|warning|openapi/settings.yaml|/properties/under/enum",
		}},
		{"unparsable file", map[string]string{"settings.yaml": "a: [", "doc-ru-settings.yaml": "{}"},
			[]string{"syntax|error|openapi/settings.yaml|"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, err := verify(pkgFS(tc.files))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if got := findingLines(fs); !sameLines(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
			for _, f := range fs {
				if f.Message == "" {
					t.Errorf("finding without message: %+v", f)
				}
			}
		})
	}
	if _, err := verify(pkgFS(nil)); err != nil {
		t.Fatalf("empty openapi/ is not an error: %v", err)
	}
	if _, err := loadFS(pkgFS(map[string]string{"settings.yaml": "type: object"})); err != nil {
		t.Fatalf("missing doc-ru must not fail loading: %v", err)
	}
}

// TestVerify_GoldenPackages runs Verify on every package under
// testdata/verify and compares its findings with the package's want.txt
// (rule|severity|file|schema path|message, one a line; -update-golden
// rewrites it).
func TestVerify_GoldenPackages(t *testing.T) {
	dirs, err := filepath.Glob("testdata/verify/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no verify packages: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			fs, err := VerifyDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, f := range fs {
				fmt.Fprintf(&b, "%s|%s|%s|%s|%s\n", f.Rule, f.Severity, f.File, f.SchemaPath, f.Message)
			}
			want := filepath.Join(dir, "want.txt")
			if *updateGolden {
				if err := os.WriteFile(want, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != string(data) {
				t.Fatalf("got\n%s\nwant\n%s", got, data)
			}
		})
	}
}
