package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// loadYAML loads a package from settings.yaml and an optional values.yaml.
func loadYAML(t testing.TB, settings, values string) *Package {
	t.Helper()
	fsys := fstest.MapFS{"openapi/settings.yaml": {Data: []byte(settings)}}
	if values != "" {
		fsys["openapi/values.yaml"] = &fstest.MapFile{Data: []byte(values)}
	}
	return tryLoad(t, func() (*Package, error) { return loadFS(fsys) })
}

const appSettings = `
type: object
properties:
  replicas:
    type: integer
    default: 1
  maxReplicas:
    type: integer
    default: 3
  domain:
    type: string
  storageClass:
    type: string
    x-deckhouse-grantable-resource: storageclasses
    x-deckhouse-immutable: true
  size:
    type: integer
    x-deckhouse-validations:
    - expression: "self >= oldSelf"
      message: "size can only grow"
  storage:
    type: object
    default: {}
    properties:
      mode: {type: string, enum: [Internal, External], default: Internal}
      url: {type: string}
    oneOf:
    - properties: {mode: {enum: [Internal]}}
      x-deckhouse-enum-switch-settings:
      - to: [External]
        impact: destructive
        messages: {en: "Data is lost."}
    - properties: {mode: {enum: [External]}}
      required: [url]
required: [domain]
x-deckhouse-validations:
- expression: "self.replicas <= self.maxReplicas"
  message: "replicas must not exceed maxReplicas"
`

const appValues = `
x-extend:
  schema: settings.yaml
type: object
properties:
  internal:
    type: object
    default: {}
    properties:
      adminPassword: {type: string, minLength: 8}
      replicasSeen:
        type: number
    x-deckhouse-validations:
    - expression: "!has(self.replicasSeen) || self.replicasSeen < 100.0"
      message: "too many replicas seen"
`

func kinds(ps []*Problem) string {
	var b []string
	for _, p := range ps {
		b = append(b, fmt.Sprintf("%s/%s/%s", p.Document, p.Kind, p.Path))
	}
	return strings.Join(b, " ")
}

func TestEvaluate_ValidInstallComputesEffectiveSettingsAndValues(t *testing.T) {
	p := loadYAML(t, appSettings, appValues)
	res := p.Evaluate(Request{
		Settings: map[string]any{"domain": "app.example.com", "replicas": 2},
		Catalog:  Catalog{"storageclasses": {Default: "fast", Available: []string{"fast"}}},
	})
	if !res.OK() {
		t.Fatalf("problems: %v", problemSummary(res.Problems))
	}
	assertValue(t, res.Effective, `{domain: app.example.com, replicas: 2, maxReplicas: 3, storageClass: fast, storage: {mode: Internal}}`)
	assertValue(t, res.Values, `{domain: app.example.com, replicas: 2, maxReplicas: 3, storageClass: fast, storage: {mode: Internal}, internal: {}}`)
}

func TestEvaluate_NilSettingsAreAnEmptyObject(t *testing.T) {
	p := loadYAML(t, `{type: object, properties: {a: {type: string, default: x}}}`, "")
	res := p.Evaluate(Request{})
	if !res.OK() {
		t.Fatal(problemSummary(res.Problems))
	}
	assertValue(t, res.Effective, `{a: x}`)
	assertValue(t, res.Values, `{a: x}`)
}

func TestEvaluate_SettingsMustBeAnObject(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	for _, s := range []any{"x", []any{}, 1.5, true} {
		res := p.Evaluate(Request{Settings: s})
		if len(res.Problems) != 1 || res.Problems[0].Kind != KindType || res.Problems[0].Message != "settings must be an object" || len(res.Problems[0].Path) != 0 || res.Effective != nil {
			t.Fatalf("%v: %v", s, problemSummary(res.Problems))
		}
	}
}

// TestValidation_RequiredWithDefaultCountsAsPresent: as go-openapi's object
// validator (DP's), an absent property listed in required that declares a
// non-null default counts as present; without a default, with `default:
// null`, or given as null it is still checked.
func TestValidation_RequiredWithDefaultCountsAsPresent(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, `
type: object
required: [mode, level, name]
properties:
  mode: {type: string, default: auto}
  level: {type: string, default: null}
  name: {type: string}
  vpa:
    type: object
    default: {}
    required: [updateMode]
    properties:
      updateMode: {type: string, enum: [Auto, "Off"], default: Auto}
  storage:
    type: object
    oneOf:
      - required: [size]
        properties:
          size: {type: string, default: 1Gi}
      - required: [url]
    properties:
      size: {type: string}
      url: {type: string}
`, "")
	cases := []struct {
		name     string
		settings string
		want     []string
	}{
		{"absent with a default is present", `{level: x, name: n}`, nil},
		{"absent with default null is missing", `{name: n}`, []string{"settings required level"}},
		{"absent without a default is missing", `{level: x}`, []string{"settings required name"}},
		{"given as null is checked against its type", `{mode: null, level: x, name: n}`, []string{"settings type mode"}},
		{"nested object with a default", `{level: x, name: n, vpa: {}}`, nil},
		{"oneOf branch whose required property has a default", `{level: x, name: n, storage: {}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := p.Evaluate(Request{Settings: yamlValue(t, tc.settings)})
			if got := kindSummary(res.Problems); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The effective settings carry the default that made the field present.
	res := p.Evaluate(Request{Settings: yamlValue(t, `{level: x, name: n}`)})
	assertValue(t, res.Effective, `{mode: auto, level: x, name: n, vpa: {updateMode: Auto}}`)
}

func TestCEL_RunsOnRawSettingsBeforeDefaults(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	// replicas 5 > maxReplicas default 3, but maxReplicas is not given: the
	// rule sees only what the user wrote and the missing key passes.
	res := p.Evaluate(Request{Settings: map[string]any{"domain": "d", "replicas": 5}})
	if !res.OK() {
		t.Fatal(problemSummary(res.Problems))
	}
	res = p.Evaluate(Request{Settings: map[string]any{"domain": "d", "replicas": 5, "maxReplicas": 4}})
	if kinds(res.Problems) != "settings/cel/" || res.Problems[0].Message != "replicas must not exceed maxReplicas" {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
}

func TestEvaluate_UpdateRunsOldSelfImmutabilityAndSwitches(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	prev := map[string]any{"domain": "d", "replicas": 1, "maxReplicas": 3, "storageClass": "fast", "size": 10, "storage": map[string]any{"mode": "Internal"}}
	settings := map[string]any{"domain": "d", "storageClass": "slow", "size": 5, "storage": map[string]any{"mode": "External", "url": "https://x"}}
	cat := Catalog{"storageclasses": {Default: "fast", Available: []string{"fast", "slow"}}}

	res := p.Evaluate(Request{Settings: settings, Previous: prev, HasPrevious: true, Catalog: cat})
	if got, want := kinds(res.Problems), "settings/cel/size settings/switch/storage.mode settings/immutable/storageClass"; got != want {
		t.Fatalf("got %s (%v)", got, problemSummary(res.Problems))
	}
	if len(res.Switches) != 1 || res.Switches[0].Impact != ImpactDestructive {
		t.Fatalf("switches %+v", res.Switches)
	}
	res = p.Evaluate(Request{Settings: settings, Previous: prev, HasPrevious: true, Catalog: cat, AllowDestructiveSwitch: true})
	if got, want := kinds(res.Problems), "settings/cel/size settings/immutable/storageClass"; got != want {
		t.Fatalf("acknowledged switch still rejected: %s", got)
	}
	if len(res.Switches) != 1 {
		t.Fatalf("acknowledged switch must still be reported: %+v", res.Switches)
	}
	// On install the same settings are fine.
	res = p.Evaluate(Request{Settings: settings, Catalog: cat})
	if !res.OK() || len(res.Switches) != 0 {
		t.Fatalf("install: %v %+v", problemSummary(res.Problems), res.Switches)
	}
}

func TestEvaluate_VersionChangeSkipsOnlyOldSelfRules(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, appSettings, "")
	prev := map[string]any{"domain": "d", "replicas": 1, "maxReplicas": 3, "storageClass": "fast", "size": 10, "storage": map[string]any{"mode": "Internal"}}
	cat := Catalog{"storageclasses": {Default: "fast", Available: []string{"fast"}}}
	cases := []struct {
		name     string
		settings any
		previous any
		want     string // kinds of the problems
	}{
		// The oldSelf rule on size is not run: DP skips it on a version change.
		{name: "oldSelf rule skipped", settings: map[string]any{"domain": "d", "storageClass": "fast", "size": 5}, previous: prev},
		// Everything else still runs: CEL without oldSelf, schema, grants,
		// immutability and switches.
		{name: "other checks run", previous: prev,
			settings: map[string]any{"domain": "d", "replicas": 9, "maxReplicas": 3, "storageClass": "slow", "size": 5, "storage": map[string]any{"mode": "External", "url": "u"}},
			want:     "settings/cel/ settings/switch/storage.mode settings/grant/storageClass settings/immutable/storageClass"},
		{name: "schema runs", settings: map[string]any{"domain": 1, "storageClass": "fast", "size": 5}, previous: prev, want: "settings/type/domain"},
		// An unknown value under an oldSelf rule does not list it as not checked.
		{name: "unknown size", settings: map[string]any{"domain": "d", "storageClass": "fast", "size": Unknown{}}, previous: prev},
		{name: "unknown previous", settings: map[string]any{"domain": "d", "storageClass": "fast", "size": 5}, previous: Unknown{}},
		{name: "unknown settings", settings: Unknown{}, previous: prev},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := p.Evaluate(Request{Settings: tc.settings, Previous: tc.previous, HasPrevious: true, Catalog: cat, VersionChange: true})
			if got := kinds(res.Problems); got != tc.want {
				t.Fatalf("problems: got %q, want %q (%v)", got, tc.want, problemSummary(res.Problems))
			}
			for _, s := range res.Skipped {
				if s.Check == "CEL rule" && strings.Contains(s.Rule, "oldSelf") {
					t.Fatalf("an oldSelf rule is listed as not checked: %+v", s)
				}
			}
		})
	}
	// The same update without a version change runs the rule.
	res := p.Evaluate(Request{Settings: cases[0].settings, Previous: prev, HasPrevious: true, Catalog: cat})
	if got := kinds(res.Problems); got != "settings/cel/size" {
		t.Fatalf("without a version change: %v", problemSummary(res.Problems))
	}
}

func TestImmutable_GrantDefaultCountsAsAppliedValue(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	prev := map[string]any{"domain": "d", "replicas": 1, "maxReplicas": 3, "storageClass": "fast", "storage": map[string]any{"mode": "Internal"}}
	cat := Catalog{"storageclasses": {Default: "fast", Available: []string{"fast", "slow"}}}
	res := p.Evaluate(Request{Settings: map[string]any{"domain": "d"}, Previous: prev, HasPrevious: true, Catalog: cat})
	if !res.OK() {
		t.Fatal(problemSummary(res.Problems))
	}
}

func TestEvaluate_PreviousMustBeAnObject(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	res := p.Evaluate(Request{Settings: map[string]any{"domain": "d"}, Previous: "x", HasPrevious: true})
	if kinds(res.Problems) != "previous_settings/type/" {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
}

func TestValues_HookValuesAreValidatedAgainstValuesSchemaWithCEL(t *testing.T) {
	p := loadYAML(t, appSettings, appValues)
	res := p.Evaluate(Request{
		Settings:   map[string]any{"domain": "d"},
		HookValues: map[string]any{"internal": map[string]any{"adminPassword": "short", "replicasSeen": 150, "unknown": 1}},
	})
	got := kinds(res.Problems)
	want := "hook_values/cel/internal hook_values/schema/internal.adminPassword hook_values/undeclared/internal.unknown"
	if got != want {
		t.Fatalf("got %s\n%v", got, problemSummary(res.Problems))
	}
	res = p.Evaluate(Request{Settings: map[string]any{"domain": "d"}, HookValues: map[string]any{"internal": map[string]any{"adminPassword": "long-enough"}}})
	if !res.OK() {
		t.Fatal(problemSummary(res.Problems))
	}
	assertValue(t, res.Values["internal"], `{adminPassword: long-enough}`)
}

func TestValues_WithoutValuesSchemaHookValuesAreMergedUnchecked(t *testing.T) {
	p := loadYAML(t, `{type: object, properties: {a: {type: string}}}`, "")
	res := p.Evaluate(Request{Settings: map[string]any{"a": "x"}, HookValues: map[string]any{"b": 1}})
	if !res.OK() {
		t.Fatal(problemSummary(res.Problems))
	}
	assertValue(t, res.Values, `{a: x, b: 1}`)
}

func TestEvaluate_DeeplyNestedInputIsAProblemNotAPanic(t *testing.T) {
	p := loadYAML(t, `{type: object, additionalProperties: true}`, "")
	deep := any(map[string]any{})
	for i := 0; i < 10000; i++ {
		deep = map[string]any{"a": deep}
	}
	res := p.Evaluate(Request{Settings: deep})
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Message, "nested deeper") {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
	res = p.Evaluate(Request{Settings: map[string]any{}, Previous: deep, HasPrevious: true})
	if kinds(res.Problems) != "previous_settings/schema/" {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
}

func TestEvaluate_AcceptsEveryNumberForm(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	for _, n := range []any{2, int64(2), float64(2), json.Number("2"), uint8(2)} {
		res := p.Evaluate(Request{Settings: map[string]any{"domain": "d", "replicas": n, "maxReplicas": 3}})
		if !res.OK() {
			t.Fatalf("%T: %v", n, problemSummary(res.Problems))
		}
	}
}

func TestEvaluate_ProblemsAreSorted(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	res := p.Evaluate(Request{Settings: map[string]any{"zz": 1, "replicas": "x", "aa": 2}})
	for i := 1; i < len(res.Problems); i++ {
		a, b := res.Problems[i-1], res.Problems[i]
		if a.Document > b.Document || (a.Document == b.Document && a.Path.String() > b.Path.String()) {
			t.Fatalf("not sorted: %v", problemSummary(res.Problems))
		}
	}
}

func TestEvaluate_DoesNotChangeTheRequest(t *testing.T) {
	p := loadYAML(t, appSettings, appValues)
	settings := map[string]any{"domain": "d", "storage": map[string]any{}}
	hook := map[string]any{"internal": map[string]any{"adminPassword": "12345678"}}
	p.Evaluate(Request{Settings: settings, HookValues: hook})
	assertValue(t, settings, `{domain: d, storage: {}}`)
	assertValue(t, hook, `{internal: {adminPassword: "12345678"}}`)
}

func TestValues_HookValuesMustBeAnObject(t *testing.T) {
	p := loadYAML(t, appSettings, appValues)
	res := p.Evaluate(Request{Settings: map[string]any{"domain": "d"}, HookValues: []any{1}})
	if kinds(res.Problems) != "hook_values/type/" {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
}

func TestValues_WithoutXExtendSettingsFailValuesValidation(t *testing.T) {
	// Settings are at the root of values: a values schema that does not
	// declare them (no x-extend) rejects the values once a hook changes them.
	p := loadYAML(t, `{type: object, properties: {domain: {type: string}}}`, `{type: object, properties: {internal: {type: object, default: {}}}}`)
	res := p.Evaluate(Request{Settings: map[string]any{"domain": "d"}, HookValues: map[string]any{"internal": map[string]any{}}})
	if kinds(res.Problems) != "hook_values/undeclared/domain" {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
	// Without hook values nothing validates the values.
	if res := p.Evaluate(Request{Settings: map[string]any{"domain": "d"}}); !res.OK() {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
}

func TestEvaluate_IsSafeForConcurrentUse(t *testing.T) {
	p := loadYAML(t, appSettings, appValues)
	done := make(chan string)
	for g := 0; g < 8; g++ {
		go func(g int) {
			res := p.Evaluate(Request{Settings: map[string]any{"domain": "d", "replicas": g % 5, "maxReplicas": 3}})
			done <- kinds(res.Problems)
		}(g)
	}
	for g := 0; g < 8; g++ {
		if got := <-done; got != "" && got != "settings/cel/" {
			t.Fatalf("unexpected %s", got)
		}
	}
}

func TestFields_FollowSchemaSourceOrderAfterUIOrder(t *testing.T) {
	p := loadYAML(t, `
type: object
properties:
  zeta: {type: string}
  alpha: {type: string}
  late: {type: string, x-deckhouse-ui-order: 20}
  early: {type: string, x-deckhouse-ui-order: 10}
`, "")
	var got []string
	for _, f := range p.Fields() {
		got = append(got, f.Path.String())
	}
	if strings.Join(got, ",") != "early,late,zeta,alpha" {
		t.Fatalf("got %v", got)
	}
}

func TestEvaluate_ValueOutsideTheJSONModelIsAProblem(t *testing.T) {
	p := loadYAML(t, appSettings, "")
	res := p.Evaluate(Request{Settings: map[string]any{"domain": make(chan int)}})
	if kinds(res.Problems) != "settings/type/" || !strings.Contains(res.Problems[0].Message, "chan int") {
		t.Fatalf("got %v", problemSummary(res.Problems))
	}
}

// kindSummary renders problems as "document kind path", plus the message
// for CEL rules (the author's text): tests of rules, not of wording.
func kindSummary(ps []*Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p.Document) + " " + string(p.Kind) + " " + p.Path.String()
		if p.Kind == KindCEL {
			out[i] += ": " + p.Message
		}
	}
	return out
}
