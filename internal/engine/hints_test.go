package engine

import (
	"testing"
)

func TestKind_DescriptionNamesEveryKindInWords(t *testing.T) {
	t.Parallel()
	want := map[Kind]string{
		KindUndeclared: "field not declared in the package schema",
		KindType:       "wrong type",
		KindEnum:       "value not allowed",
		KindPattern:    "does not match the pattern",
		KindRequired:   "required field missing",
		KindCEL:        "rule failed",
		KindImmutable:  "immutable field changed",
		KindGrant:      "resource not available to the project",
		KindSwitch:     "destructive switch not acknowledged",
		KindSchema:     "schema rule violated",
	}
	for k, w := range want {
		if got := k.Description(); got != w {
			t.Errorf("%s: got %q, want %q", k, got, w)
		}
	}
	if got := Kind("other").Description(); got != "" {
		t.Errorf("unknown kind: %q", got)
	}
}

func TestUndeclared_SuggestsClosestDeclaredSibling(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, `
type: object
properties:
  replicas: {type: integer}
  maxReplicas: {type: integer}
  logLevel: {type: string}
  logFormat: {type: string}
  storage:
    type: object
    properties:
      size: {type: string}
      sizeLimit: {type: string}
  labels:
    type: object
    additionalProperties: {type: string}
`, "")
	cases := []struct {
		name, settings, path, want string
	}{
		{"one typo", `{replica: 1}`, "replica", "replicas"},
		{"case differs", `{Replicas: 1}`, "Replicas", "replicas"},
		{"nested object", `{storage: {sise: 1Gi}}`, "storage.sise", "size"},
		{"last letter wrong", `{logFormal: x}`, "logFormal", "logFormat"},
		{"closest of two similar siblings", `{logLevet: x}`, "logLevet", "logLevel"},
		{"too far", `{completelyDifferent: 1}`, "completelyDifferent", ""},
		{"short key, distance 2 allowed", `{sz: 1}`, "sz", ""},
		{"long key, distance len/3 allowed", `{maxxReplicaz: 1}`, "maxxReplicaz", "maxReplicas"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := p.Evaluate(Request{Settings: yamlValue(t, tc.settings)})
			for _, pr := range res.Problems {
				if pr.Kind == KindUndeclared && pr.Path.String() == tc.path {
					if pr.Suggestion != tc.want {
						t.Fatalf("suggestion %q, want %q", pr.Suggestion, tc.want)
					}
					return
				}
			}
			t.Fatalf("no undeclared problem at %s: %v", tc.path, problemSummary(res.Problems))
		})
	}
}

func TestClosestName_TiesBrokenAlphabetically(t *testing.T) {
	t.Parallel()
	declared := map[string]any{"abd": nil, "abc": nil, "abe": nil}
	if got := closestName("abx", declared); got != "abc" {
		t.Fatalf("got %q", got)
	}
	if got := levenshtein("kitten", "sitting"); got != 3 {
		t.Fatalf("levenshtein(kitten, sitting) = %d", got)
	}
}

func TestCEL_EveryProblemCarriesTheExpressionAsRule(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, settings string }{
		{"false result", `self.a < 3`, `{a: 5}`},
		{"evaluation error", `int(self.s) > 0`, `{s: abc}`},
		{"not a bool", `self.a == 5 ? self.s : true`, `{a: 5, s: x}`},
		{"cost limit", `self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0.0)))`, `{l: [` + repeatNumbers(200) + `]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := loadYAML(t, `
type: object
properties:
  a: {type: integer}
  s: {type: string}
  l: {type: array, items: {type: number}}
x-deckhouse-validations:
- expression: '`+tc.expr+`'
  message: the rule
`, "")
			res := p.Evaluate(Request{Settings: yamlValue(t, tc.settings)})
			if len(res.Problems) != 1 || res.Problems[0].Kind != KindCEL || res.Problems[0].Rule != tc.expr {
				t.Fatalf("got %v", res.Problems)
			}
		})
	}
}

func repeatNumbers(n int) string {
	s := "0"
	for i := 1; i < n; i++ {
		s += ", 0"
	}
	return s
}
