package engine

import (
	"reflect"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

func effectiveOf(t *testing.T, schema, doc string) map[string]any {
	t.Helper()
	return effectiveWithDefaults(yamlTree(t, schema), yamlTree(t, doc))
}

func assertValue(t *testing.T, got any, wantYAML string) {
	t.Helper()
	want := yamlValue(t, wantYAML)
	if !jsonvalue.Equal(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestDefaults_MissingKeyGetsDeepCopyOfDefault(t *testing.T) {
	tree := yamlTree(t, `
type: object
properties:
  labels: {type: object, additionalProperties: {type: string}, default: {a: "1"}}
`)
	got := effectiveWithDefaults(tree, map[string]any{})
	assertValue(t, got, `{labels: {a: "1"}}`)
	got["labels"].(map[string]any)["b"] = "2"
	again := effectiveWithDefaults(tree, map[string]any{})
	assertValue(t, again, `{labels: {a: "1"}}`)
}

func TestDefaults_PresentNullIsKept(t *testing.T) {
	got := effectiveOf(t, `
type: object
properties:
  a: {type: string, nullable: true, default: x}
  o: {type: object, nullable: true, default: {}, properties: {b: {type: string, default: y}}}
`, `{a: null, o: null}`)
	assertValue(t, got, `{a: null, o: null}`)
}

func TestDefaults_NestedOnlyWhereParentExists(t *testing.T) {
	schema := `
type: object
properties:
  withoutDefault:
    type: object
    properties:
      size: {type: integer, default: 10}
  withDefault:
    type: object
    default: {}
    properties:
      size: {type: integer, default: 20}
`
	assertValue(t, effectiveOf(t, schema, `{}`), `{withDefault: {size: 20}}`)
	assertValue(t, effectiveOf(t, schema, `{withoutDefault: {}}`), `{withoutDefault: {size: 10}, withDefault: {size: 20}}`)
}

func TestDefaults_ApplyThroughArrayItemsAndMapValues(t *testing.T) {
	got := effectiveOf(t, `
type: object
properties:
  users:
    type: array
    items:
      type: object
      properties:
        name: {type: string}
        role: {type: string, default: viewer}
  pools:
    type: object
    additionalProperties:
      type: object
      properties:
        replicas: {type: integer, default: 1}
`, `{users: [{name: a}, {name: b, role: admin}], pools: {x: {}, y: {replicas: 3}}}`)
	assertValue(t, got, `{users: [{name: a, role: viewer}, {name: b, role: admin}], pools: {x: {replicas: 1}, y: {replicas: 3}}}`)
}

func TestDefaults_NestedDefaultsInsideAnInjectedDefault(t *testing.T) {
	got := effectiveOf(t, `
type: object
properties:
  storage:
    type: object
    default: {}
    properties:
      mode: {type: string, default: Internal}
      internal:
        type: object
        default: {}
        properties:
          size: {type: string, default: 1Gi}
`, `{}`)
	assertValue(t, got, `{storage: {mode: Internal, internal: {size: 1Gi}}}`)
}

func TestMerge_LaterSourceDeepMergesObjects(t *testing.T) {
	// dp-reference §3: nested: {default: {a: 1, b: 2}} and user nested: {a: 5} → {a: 5, b: 2}.
	got := effectiveOf(t, `
type: object
properties:
  nested:
    type: object
    default: {a: 1, b: 2}
    properties:
      a: {type: integer}
      b: {type: integer}
`, `{nested: {a: 5}}`)
	assertValue(t, got, `{nested: {a: 5, b: 2}}`)
}

func TestMerge_LaterSourceReplacesArraysAndScalars(t *testing.T) {
	got := effectiveOf(t, `
type: object
properties:
  list: {type: array, items: {type: string}, default: [a, b, c]}
  s: {type: string, default: x}
`, `{list: [z], s: y}`)
	assertValue(t, got, `{list: [z], s: y}`)
}

func TestMerge_DeepMergeNeverAliasesTheSource(t *testing.T) {
	src := map[string]any{"a": map[string]any{"b": []any{int64(1)}}}
	dst := deepMerge(map[string]any{}, src).(map[string]any)
	dst["a"].(map[string]any)["b"].([]any)[0] = int64(2)
	if !reflect.DeepEqual(src, map[string]any{"a": map[string]any{"b": []any{int64(1)}}}) {
		t.Fatalf("source changed: %#v", src)
	}
}

func TestDefaults_UserDocumentIsNotChanged(t *testing.T) {
	user := yamlTree(t, `{o: {}}`)
	effectiveWithDefaults(yamlTree(t, `{properties: {o: {type: object, properties: {a: {type: string, default: x}}}}}`), user)
	assertValue(t, user, `{o: {}}`)
}

func TestValues_ValuesDefaultsFillOnlyUnsetFieldsAndHookValuesMergeLast(t *testing.T) {
	values := yamlTree(t, `
type: object
properties:
  replicas: {type: integer, default: 1}
  internal:
    type: object
    default: {}
    properties:
      adminPassword: {type: string}
      mode: {type: string, default: auto}
`)
	eff := yamlTree(t, `{replicas: 3}`)
	got := buildValues(values, eff, yamlTree(t, `{internal: {adminPassword: s3cr3t}}`))
	assertValue(t, got, `{replicas: 3, internal: {mode: auto, adminPassword: s3cr3t}}`)
	assertValue(t, eff, `{replicas: 3}`)
}

func TestValues_WithoutValuesSchemaAreEffectivePlusHookValues(t *testing.T) {
	got := buildValues(nil, yamlTree(t, `{a: 1}`), yamlTree(t, `{b: 2}`))
	assertValue(t, got, `{a: 1, b: 2}`)
}

func TestNormalize_NumbersAndUnsupportedTypes(t *testing.T) {
	v, err := normalize(map[string]any{"i": 1, "u": uint8(2), "f": float32(1.5), "s": []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	assertValue(t, v, `{i: 1, u: 2, f: 1.5, s: [a]}`)
	if _, err := normalize(map[string]any{"c": make(chan int)}); err == nil {
		t.Fatal("a channel must be rejected")
	}
	deep := any("x")
	for i := 0; i < 10000; i++ {
		deep = []any{deep}
	}
	if _, err := normalize(deep); err == nil {
		t.Fatal("10 000 levels must be rejected")
	}
}

func TestDefaults_PatternPropertiesAndTupleItems(t *testing.T) {
	got := effectiveOf(t, `
type: object
properties:
  byPrefix:
    type: object
    properties:
      fixed: {type: object, properties: {v: {type: integer, default: 0}}}
    patternProperties:
      "^x-": {type: object, properties: {v: {type: integer, default: 1}}}
    additionalProperties: {type: object, properties: {v: {type: integer, default: 2}}}
  pair:
    type: array
    items:
    - {type: object, properties: {first: {type: boolean, default: true}}}
    - {type: object, properties: {second: {type: boolean, default: false}}}
    additionalItems: {type: object, properties: {rest: {type: string, default: r}}}
`, `{byPrefix: {fixed: {}, x-a: {}, other: {}}, pair: [{}, {}, {}]}`)
	assertValue(t, got, `{byPrefix: {fixed: {v: 0}, x-a: {v: 1}, other: {v: 2}}, pair: [{first: true}, {second: false}, {rest: r}]}`)
}

// TestDefaults_NullDefaultIsNoDefault: `default: null` injects nothing, in
// the effective settings, in values.yaml defaults and in the form metadata.
func TestDefaults_NullDefaultIsNoDefault(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, `
type: object
properties:
  target: {type: string, default: null}
  backup:
    type: object
    default: {}
    properties:
      target: {type: string, default: null}
      schedule: {type: string, default: "0 3 * * *"}
`, `
x-extend: {schema: settings.yaml}
type: object
properties:
  internal:
    type: object
    default: {}
    properties:
      password: {type: string, default: null}
`)
	cases := []struct {
		name     string
		settings string
		hook     string
		want     string
	}{
		{"top level", `{}`, ``, `{backup: {schedule: "0 3 * * *"}, internal: {}}`},
		{"a given value is kept", `{target: t}`, ``, `{target: t, backup: {schedule: "0 3 * * *"}, internal: {}}`},
		{"hook values are not filled with null", `{}`, `{internal: {}}`, `{backup: {schedule: "0 3 * * *"}, internal: {}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Settings: yamlValue(t, tc.settings)}
			if tc.hook != "" {
				req.HookValues = yamlValue(t, tc.hook)
			}
			res := p.Evaluate(req)
			if !res.OK() {
				t.Fatalf("problems: %v", problemSummary(res.Problems))
			}
			assertValue(t, res.Values, tc.want)
		})
	}
	for _, f := range p.Fields() {
		if f.Path.String() == "target" && (f.HasDefault || f.Default != nil) {
			t.Fatalf("field target reports a default: %+v", f)
		}
	}
}
