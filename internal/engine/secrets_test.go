package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// secretMarker and secretNumber stand for values a user gives through
// sensitive settings; no problem may repeat them.
const (
	secretMarker = "SECRETMARKER"
	secretNumber = "987654321"
)

// assertNoSecret fails when any field of any problem holds the markers.
func assertNoSecret(t *testing.T, ps []*Problem) {
	t.Helper()
	for _, p := range ps {
		for _, f := range []string{p.Message, p.Rule, p.Path.String(), p.Suggestion} {
			if strings.Contains(f, secretMarker) || strings.Contains(f, secretNumber) || strings.Contains(f, "9.87654321") {
				t.Errorf("problem prints a value: %s %s %q (rule %q)", p.Kind, p.Path, p.Message, p.Rule)
			}
		}
	}
}

func TestProblems_NeverContainInstanceValues(t *testing.T) {
	t.Parallel()
	bad := secretMarker + " !?"
	num := json.Number(secretNumber)
	cases := []struct {
		name     string
		schema   string // the schema of the field "f" of settings
		settings any    // the value of "f"
		values   string // an optional values.yaml
		req      func(*Request)
		kind     Kind
		rule     string // the Rule expected of one problem ("" = any)
	}{
		{name: "type", schema: `{type: integer}`, settings: bad, kind: KindType, rule: "type"},
		{name: "enum", schema: `{type: string, enum: [a, b]}`, settings: bad, kind: KindEnum, rule: "enum"},
		{name: "enum of numbers", schema: `{type: integer, enum: [1, 2]}`, settings: num, kind: KindEnum, rule: "enum"},
		{name: "pattern", schema: `{type: string, pattern: '^[0-9]+$'}`, settings: bad, kind: KindPattern, rule: "pattern"},
		{name: "minLength", schema: `{type: string, minLength: 100}`, settings: bad, kind: KindSchema, rule: "minLength"},
		{name: "maxLength", schema: `{type: string, maxLength: 3}`, settings: bad, kind: KindSchema, rule: "maxLength"},
		{name: "minimum", schema: `{type: integer, minimum: 0}`, settings: json.Number("-" + secretNumber), kind: KindSchema, rule: "minimum"},
		{name: "maximum", schema: `{type: integer, maximum: 1000}`, settings: num, kind: KindSchema, rule: "maximum"},
		{name: "exclusiveMinimum", schema: `{type: number, minimum: 0, exclusiveMinimum: true}`, settings: json.Number("-" + secretNumber + ".5"), kind: KindSchema},
		{name: "exclusiveMaximum", schema: `{type: number, maximum: 1000, exclusiveMaximum: true}`, settings: json.Number(secretNumber + ".5"), kind: KindSchema},
		{name: "multipleOf", schema: `{type: integer, multipleOf: 2}`, settings: num, kind: KindSchema, rule: "multipleOf"},
		{name: "minItems", schema: `{type: array, minItems: 5, items: {type: string}}`, settings: []any{bad}, kind: KindSchema, rule: "minItems"},
		{name: "maxItems", schema: `{type: array, maxItems: 1, items: {type: string}}`, settings: []any{bad, bad + "2"}, kind: KindSchema, rule: "maxItems"},
		{name: "uniqueItems", schema: `{type: array, uniqueItems: true, items: {type: string}}`, settings: []any{bad, bad}, kind: KindSchema, rule: "uniqueItems"},
		{name: "minProperties", schema: `{type: object, minProperties: 3, additionalProperties: {type: string}}`, settings: map[string]any{"k": bad}, kind: KindSchema, rule: "minProperties"},
		{name: "maxProperties", schema: `{type: object, maxProperties: 1, additionalProperties: {type: string}}`, settings: map[string]any{"k": bad, "l": bad}, kind: KindSchema, rule: "maxProperties"},
		{name: "required", schema: `{type: object, required: [a], properties: {a: {type: string}, b: {type: string}}}`, settings: map[string]any{"b": bad}, kind: KindRequired, rule: "required"},
		{name: "undeclared", schema: `{type: object, properties: {replicas: {type: integer}}}`, settings: map[string]any{"replica": bad}, kind: KindUndeclared},
		{name: "additionalProperties false schema", schema: `{type: object, additionalProperties: false}`, settings: map[string]any{"k": bad}, kind: KindUndeclared},
		{name: "not", schema: `{type: string, not: {enum: ["` + bad + `"]}}`, settings: bad, kind: KindSchema, rule: "not"},
		{name: "oneOf none", schema: `{oneOf: [{type: integer}, {type: boolean}]}`, settings: bad, kind: KindSchema, rule: "oneOf"},
		{name: "oneOf summary of branch errors", schema: `{oneOf: [{type: string, format: uri}, {type: string, minLength: 100}]}`, settings: bad, kind: KindSchema, rule: "oneOf"},
		{name: "oneOf many", schema: `{oneOf: [{type: string}, {type: string, minLength: 1}]}`, settings: bad, kind: KindSchema, rule: "oneOf"},
		{name: "anyOf", schema: `{anyOf: [{type: string, pattern: '^a$'}, {type: string, maxLength: 1}]}`, settings: bad, kind: KindSchema, rule: "anyOf"},
		{name: "null in enum", schema: `{type: string, nullable: true, enum: [a]}`, settings: nil, kind: KindEnum},
		{name: "cel rule", schema: "{type: string, x-deckhouse-validations: [{expression: 'self.size() < 3', message: 'too long'}]}", settings: bad, kind: KindCEL, rule: "self.size() < 3"},
		{name: "cel int conversion", schema: "{type: string, x-deckhouse-validations: [{expression: 'int(self) > 0', message: 'a number'}]}", settings: bad, kind: KindCEL},
		{name: "cel duration conversion", schema: "{type: string, x-deckhouse-validations: [{expression: 'duration(self) > duration(\"1s\")', message: 'a duration'}]}", settings: bad, kind: KindCEL},
		{name: "cel timestamp conversion", schema: "{type: string, x-deckhouse-validations: [{expression: 'timestamp(self) > timestamp(\"2020-01-01T00:00:00Z\")', message: 'a time'}]}", settings: bad, kind: KindCEL},
		{name: "cel regex from the value", schema: "{type: string, x-deckhouse-validations: [{expression: 'self.matches(self + \"(\")', message: 'a regex'}]}", settings: bad, kind: KindCEL},
		{name: "cel division by zero", schema: "{type: integer, x-deckhouse-validations: [{expression: 'int(self) / 0 > 1', message: 'divides'}]}", settings: num, kind: KindCEL},
		{name: "cel index out of range", schema: "{type: string, x-deckhouse-validations: [{expression: '[1][int(self.size())] > 0', message: 'index'}]}", settings: secretNumber, kind: KindCEL},
		{name: "cel non-bool result", schema: "{type: string, x-deckhouse-validations: [{expression: 'self == \"x\" ? true : self', message: 'bool'}]}", settings: bad, kind: KindCEL},
		{name: "grant", schema: "{type: string, x-deckhouse-grantable-resource: storageclasses}", settings: bad, kind: KindGrant,
			req: func(r *Request) { r.Catalog = Catalog{"storageclasses": {Default: "a", Available: []string{"a", "b"}}} }},
		{name: "immutable", schema: "{type: string, x-deckhouse-immutable: true}", settings: bad + "new", kind: KindImmutable,
			req: func(r *Request) { r.Previous, r.HasPrevious = map[string]any{"f": bad}, true }},
		{name: "oldSelf rule", schema: "{type: string, x-deckhouse-validations: [{expression: 'self == oldSelf', message: 'frozen'}]}", settings: bad + "new", kind: KindCEL,
			req: func(r *Request) { r.Previous, r.HasPrevious = map[string]any{"f": bad}, true }},
		{name: "switch", schema: `
    type: object
    properties:
      mode: {type: string, enum: [` + secretMarker + `A, ` + secretMarker + `B]}
    oneOf:
    - properties: {mode: {enum: [` + secretMarker + `A]}}
      x-deckhouse-enum-switch-settings: [{to: [` + secretMarker + `B], impact: destructive}]
    - properties: {mode: {enum: [` + secretMarker + `B]}}`,
			settings: map[string]any{"mode": secretMarker + "B"}, kind: KindSwitch,
			req: func(r *Request) {
				r.Previous, r.HasPrevious = map[string]any{"f": map[string]any{"mode": secretMarker + "A"}}, true
			}},
		{name: "settings not a number", schema: `{type: integer}`, settings: json.Number(secretMarker), kind: KindType},
		{name: "previous not an object", schema: `{type: string}`, settings: "a", kind: KindType,
			req: func(r *Request) { r.Previous, r.HasPrevious = bad, true }},
		{name: "hook values", schema: `{type: string}`, settings: "a", kind: KindSchema,
			values: "x-extend: {schema: settings.yaml}\ntype: object\nproperties:\n  internal: {type: object, default: {}, properties: {password: {type: string, minLength: 100}}}\n",
			req:    func(r *Request) { r.HookValues = map[string]any{"internal": map[string]any{"password": bad}} }},
		{name: "hook values cel", schema: `{type: string}`, settings: "a", kind: KindCEL,
			values: "x-extend: {schema: settings.yaml}\ntype: object\nproperties:\n  internal: {type: object, default: {}, properties: {password: {type: string, x-deckhouse-validations: [{expression: 'int(self) > 0', message: 'a number'}]}}}\n",
			req:    func(r *Request) { r.HookValues = map[string]any{"internal": map[string]any{"password": bad}} }},
	}
	for name := range dpFormats {
		if name == "password" {
			continue // asserts nothing
		}
		cases = append(cases, struct {
			name     string
			schema   string
			settings any
			values   string
			req      func(*Request)
			kind     Kind
			rule     string
		}{name: "format " + name, schema: `{type: string, format: ` + name + `}`, settings: bad, kind: KindSchema, rule: "format"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := "type: object\nproperties:\n  f: " + tc.schema + "\n"
			p := loadYAML(t, schema, tc.values)
			req := Request{Settings: map[string]any{"f": tc.settings}}
			if tc.req != nil {
				tc.req(&req)
			}
			if tc.kind == KindSwitch {
				req.Settings = map[string]any{"f": tc.settings}
			}
			res := p.Evaluate(req)
			found := false
			for _, pr := range res.Problems {
				if pr.Kind == tc.kind && (tc.rule == "" || pr.Rule == tc.rule) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no %s problem (rule %q): %v", tc.kind, tc.rule, problemSummary(res.Problems))
			}
			assertNoSecret(t, res.Problems)
		})
	}
}

// TestProblems_FormatReasonsNeverContainTheValue proves the format checkers
// themselves never echo the string they reject.
func TestProblems_FormatReasonsNeverContainTheValue(t *testing.T) {
	t.Parallel()
	for name, check := range dpFormats {
		if err := check(secretMarker + " !?"); err != nil && strings.Contains(err.Error(), secretMarker) {
			t.Errorf("format %s: %q", name, err)
		}
	}
}
