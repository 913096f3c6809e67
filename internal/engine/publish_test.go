package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

const publishSettings = `
$schema: http://json-schema.org/schema#
type: object
x-config-version: 2
x-doc-foo: bar
definitions:
  q: {type: string, x-examples: [1Gi], pattern: '^[0-9]+Gi$'}
properties:
  x-literal-name:
    type: string
    x-doc-default: a
    default: {x-kept: data}
    enum: [a]
  size:
    $ref: '#/definitions/q'
    x-deckhouse-immutable: true
  mode:
    type: string
    enum: [A, B]
    x-kubernetes-int-or-string: true
    x-deckhouse-ui-order: 1
    x-deckhouse-ui-group: G
    x-deckhouse-ui-advanced: true
    x-deckhouse-ui-validation-message: msg
    example: {x-also-data: 1}
  sc:
    type: string
    x-deckhouse-grantable-resource: storageclasses
    x-deckhouse-ui-resource-name: {apiVersion: v1, kind: Secret, x-inside: kept}
  st:
    type: object
    properties:
      m: {type: string, enum: [A, B]}
    oneOf:
      - properties: {m: {enum: [A]}}
        x-deckhouse-enum-switch-settings: [{to: [B], impact: destructive, messages: {en: e}}]
        x-custom: drop
      - properties: {m: {enum: [B]}}
x-deckhouse-validations:
  - {expression: 'true', message: ok}
`

func TestPublish_KeepsStandardKeywordsAndNineExtensions(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, publishSettings, "x-extend: {schema: settings.yaml}\ntype: object\nx-doc: d\nproperties:\n  internal: {type: object}\n")
	out := string(p.PublishedSettings())
	for _, gone := range []string{"x-config-version", "x-doc-foo", "x-examples", "x-doc-default", "x-kubernetes-int-or-string", "x-custom", "x-inside"} {
		if strings.Contains(out, gone) {
			t.Errorf("%s survived publishing", gone)
		}
	}
	for _, kept := range []string{`"x-literal-name"`, `"x-kept":"data"`, `"x-also-data":1`, `"$ref":"#/definitions/q"`, `"definitions"`, `"$schema"`,
		"x-deckhouse-immutable", "x-deckhouse-ui-order", "x-deckhouse-ui-group", "x-deckhouse-ui-advanced", "x-deckhouse-ui-validation-message",
		"x-deckhouse-grantable-resource", "x-deckhouse-ui-resource-name", "x-deckhouse-enum-switch-settings", "x-deckhouse-validations"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s missing from the published settings", kept)
		}
	}
	if strings.Contains(out, `"additionalProperties":false`) {
		t.Error("published schema must not be closed")
	}
	vals := string(p.PublishedValues())
	if strings.Contains(vals, "x-extend") || strings.Contains(vals, `"size"`) || strings.Contains(vals, "x-doc") {
		t.Errorf("published values must be unmerged and filtered: %s", vals)
	}
	var v any
	if err := json.Unmarshal(p.PublishedSettings(), &v); err != nil {
		t.Fatal(err)
	}
}

func TestPublish_CanonicalStableBytes(t *testing.T) {
	t.Parallel()
	a := loadSchemas(t, "type: object\nproperties:\n  b: {type: string}\n  a: {type: integer, default: 1}\n", "")
	b := loadSchemas(t, "properties:\n  a: {default: 1, type: integer}\n  b: {type: string}\ntype: object\n", "")
	if !bytes.Equal(a.PublishedSettings(), b.PublishedSettings()) {
		t.Fatalf("not canonical:\n%s\n%s", a.PublishedSettings(), b.PublishedSettings())
	}
	want := `{"properties":{"a":{"default":1,"type":"integer"},"b":{"type":"string"}},"type":"object"}`
	if string(a.PublishedSettings()) != want {
		t.Fatalf("got %s", a.PublishedSettings())
	}
	if a.PublishedValues() != nil {
		t.Fatal("PublishedValues without values.yaml")
	}
}

func TestPublish_LoadPublishedGivesSameVerdicts(t *testing.T) {
	t.Parallel()
	src := loadSchemas(t, publishSettings, "")
	pub, err := LoadPublished(src.PublishedSettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if pub.SettingsFile() != "" || pub.HasValuesSchema() {
		t.Fatal("published package metadata")
	}
	for _, doc := range []string{
		"{}", "size: 1Gi", "size: 1Mi", "mode: C", "x-literal-name: a", "x-literal-name: b", "other: 1",
		"st: {m: A}", "st: {m: C}", "sc: x", "mode: null",
	} {
		if a, b := check(t, src, doc), check(t, pub, doc); !sameLines(a, b) {
			t.Errorf("%s: LoadFS %v, LoadPublished %v", doc, a, b)
		}
	}
	// YAML is accepted too, and publishing is idempotent.
	again, err := LoadPublished([]byte(publishSettings), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.PublishedSettings(), src.PublishedSettings()) {
		t.Fatal("publishing YAML and LoadFS differ")
	}
}

func TestCache_SameBytesSamePackage(t *testing.T) {
	t.Parallel()
	s := []byte(`{"type":"object","properties":{"cacheProbe":{"type":"string"}}}`)
	v := []byte(`{"type":"object"}`)
	var wg sync.WaitGroup
	pkgs := make([]*Package, 8)
	for i := range pkgs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p, err := LoadPublished(s, v)
			if err != nil {
				t.Error(err)
			}
			pkgs[i] = p
		}(i)
	}
	wg.Wait()
	for _, p := range pkgs[1:] {
		if p != pkgs[0] {
			t.Fatal("same bytes compiled twice")
		}
	}
	other, err := LoadPublished(s, nil)
	if err != nil || other == pkgs[0] {
		t.Fatal("different values must be a different package")
	}
	files := map[string]string{"settings.yaml": "type: object\nproperties:\n  cacheFS: {type: string}\n"}
	a, err1 := loadFS(pkgFS(files))
	b, err2 := loadFS(pkgFS(files))
	if err1 != nil || err2 != nil || a != b {
		t.Fatal("LoadFS of the same files must return the same *Package")
	}
	files["doc-ru-settings.yaml"] = "properties: {}"
	if c, _ := loadFS(pkgFS(files)); c != a {
		t.Fatal("doc-ru files must not change the cache key")
	}
}

// TestPublish_WronglyTypedValueIsNotPublished: DP's publishing is a typed
// decode; a value of a kept key of the wrong type fails the whole version,
// and an OpenAPI-3 discriminator object fails DP's runtime. The error names
// the file and the schema path.
func TestPublish_WronglyTypedValueIsNotPublished(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, field, path string }{
		{"immutable a string", `{type: string, x-deckhouse-immutable: "true"}`, "/properties/f/x-deckhouse-immutable"},
		{"ui-order not an integer", `{type: string, x-deckhouse-ui-order: 1.5}`, "/properties/f/x-deckhouse-ui-order"},
		{"ui-resource-name a string", `{type: string, x-deckhouse-ui-resource-name: Secret}`, "/properties/f/x-deckhouse-ui-resource-name"},
		{"switch to not strings", `{type: object, properties: {m: {type: string}}, oneOf: [{x-deckhouse-enum-switch-settings: [{to: [false]}]}]}`, "/properties/f/oneOf/0/x-deckhouse-enum-switch-settings/0/to/0"},
		{"ui-advanced a string", `{type: string, x-deckhouse-ui-advanced: "yes"}`, "/properties/f/x-deckhouse-ui-advanced"},
		{"additionalProperties a string", `{type: object, additionalProperties: "false"}`, "/properties/f/additionalProperties"},
		{"additionalItems a number", `{type: array, items: [{type: string}], additionalItems: 0}`, "/properties/f/additionalItems"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadFS(pkgFS(map[string]string{"settings.yaml": "type: object\nproperties:\n  f: " + tc.field + "\n"}))
			var se *SchemaError
			if !errors.As(err, &se) || se.File != "openapi/settings.yaml" || se.SchemaPath != tc.path || !strings.HasSuffix(se.Message, "DP will not publish this package version") {
				t.Fatalf("got %v, want an error at %s", err, tc.path)
			}
			fs, _ := verify(pkgFS(map[string]string{"settings.yaml": "type: object\nproperties:\n  f: " + tc.field + "\n", "doc-ru-settings.yaml": "{}\n"}))
			found := false
			for _, f := range fs {
				found = found || (f.Rule == "publish" && f.Severity == SeverityError && f.SchemaPath == tc.path)
			}
			if !found {
				t.Fatalf("Verify: no publish finding at %s: %v", tc.path, fs)
			}
		})
	}
}

// TestPublish_KeepsExactlyTheTypedKeys: keys DP's struct has no field for
// are dropped, false flags, empty strings and default: null are omitted.
func TestPublish_KeepsExactlyTheTypedKeys(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `type: object
properties:
  f:
    type: string
    const: x
    deprecated: true
    readOnly: true
    nullable: false
    default: null
    x-deckhouse-immutable: false
    x-deckhouse-validations: [{expression: "true", message: m, rule: "true"}]
  g: {type: [string, "null"], x-deckhouse-ui-order: 2.0}
$defs: {a: {type: string}}
`, "")
	out := string(p.PublishedSettings())
	for _, gone := range []string{"const", "deprecated", "readOnly", "nullable", "default", "x-deckhouse-immutable", `"rule"`, "$defs"} {
		if strings.Contains(out, gone) {
			t.Errorf("%s survived publishing: %s", gone, out)
		}
	}
	for _, kept := range []string{`"x-deckhouse-ui-order":2`, `"type":["string","null"]`, `"expression":"true"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s missing: %s", kept, out)
		}
	}
}

// TestPublish_UnpublishablePackageIsRefusedWithTheReason: a package shaped
// like a real one with x-deckhouse-immutable: "true" is refused at load,
// naming the file, the path and the reason.
func TestPublish_UnpublishablePackageIsRefusedWithTheReason(t *testing.T) {
	t.Parallel()
	_, err := LoadDir("testdata/unpublishable/cache")
	want := `openapi/settings.yaml at /properties/size/x-deckhouse-immutable: x-deckhouse-immutable must be a boolean (true or false), got "true": DP will not publish this package version`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestLoad_RefusesWhatDPsRuntimeRefuses: an empty
// x-deckhouse-grantable-resource (DP: "requires a non-empty value") and an
// OpenAPI 3 discriminator object (DP's runtime: "cannot unmarshal object
// into ... discriminator of type string") are refused by the raw load and by
// the load of a served (published) schema alike, with DP's reason, the file
// and the place.
func TestLoad_RefusesWhatDPsRuntimeRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, settings, path, reason string }{
		{"empty grantable resource", `{"type": "object", "properties": {"f": {"type": "string", "x-deckhouse-grantable-resource": ""}}}`,
			"/properties/f/x-deckhouse-grantable-resource", `field "f": x-deckhouse-grantable-resource requires a non-empty value`},
		{"discriminator object", `{"type": "object", "properties": {"f": {"type": "object", "discriminator": {"propertyName": "kind"}}}}`,
			"/properties/f/discriminator", `cannot unmarshal object into ... discriminator of type string`},
		{"discriminator object at the root", `{"type": "object", "discriminator": {"propertyName": "kind"}, "properties": {"kind": {"type": "string"}}}`,
			"/discriminator", `cannot unmarshal object into ... discriminator of type string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, raw := loadFS(pkgFS(map[string]string{"settings.yaml": tc.settings})) // JSON is YAML
			_, served := LoadPublished([]byte(tc.settings), nil)
			for _, got := range []struct {
				err  error
				file string
			}{{raw, "openapi/settings.yaml"}, {served, publishedSettingsF}} {
				var se *SchemaError
				if !errors.As(got.err, &se) || se.File != got.file || se.SchemaPath != tc.path || !strings.Contains(se.Message, tc.reason) {
					t.Fatalf("got %v, want an error in %s at %s with %q", got.err, got.file, tc.path, tc.reason)
				}
			}
		})
	}
}

// TestPublish_RuntimeRefusalsAreSeenOnlyInThePackageFolder: an empty
// x-deckhouse-grantable-resource and an OpenAPI 3 discriminator object make
// DP's runtime refuse the install, but DP's publish drops both (its typed
// decode keeps no empty string and has no discriminator field): the load of
// the package folder refuses them, while the schema a cluster serves holds
// neither and loads, so a plan against it cannot see them.
func TestPublish_RuntimeRefusalsAreSeenOnlyInThePackageFolder(t *testing.T) {
	cases := []struct{ name, schema, reason, key string }{
		{"empty grant", "type: object\nproperties:\n  storageClass: {type: string, x-deckhouse-grantable-resource: \"\"}\n",
			"requires a non-empty value", extGrantable},
		{"discriminator object", "type: object\ndiscriminator: {propertyName: kind}\nproperties:\n  kind: {type: string}\n",
			notLoadable, "discriminator"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadFS(pkgFS(map[string]string{"settings.yaml": tc.schema}))
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("the folder's load: got %v, want an error with %q", err, tc.reason)
			}
			raw, _ := yamlValue(t, tc.schema).(map[string]any)
			served, err := jsonvalue.Canonical((&publisher{file: settingsYAML}).node(raw, "", 0))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(served), tc.key) {
				t.Fatalf("DP's publish keeps %s: %s", tc.key, served)
			}
			if _, err := LoadPublished(served, nil); err != nil {
				t.Fatalf("the served schema does not load: %v", err)
			}
		})
	}
}
