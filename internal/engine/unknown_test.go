package engine

import (
	"reflect"
	"strings"
	"testing"
)

const unknownSettings = `
type: object
required: [domain]
properties:
  domain: {type: string, pattern: '^[a-z.]+$'}
  replicas: {type: integer, default: 1, minimum: 1}
  maxReplicas: {type: integer, default: 3}
  storageClass:
    type: string
    x-deckhouse-grantable-resource: storageclasses
    x-deckhouse-immutable: true
  auth:
    type: object
    default: {}
    required: [password]
    properties:
      user: {type: string, default: admin}
      password: {type: string, format: byte, minLength: 8}
    x-deckhouse-validations:
    - expression: "!has(self.password) || self.password != self.user"
      message: "the password must differ from the user"
  storage:
    type: object
    default: {}
    properties:
      mode: {type: string, enum: [Internal, External], default: Internal}
      url: {type: string, format: uri}
      size: {type: integer, x-deckhouse-immutable: true}
    oneOf:
    - properties: {mode: {enum: [Internal]}}
      x-deckhouse-enum-switch-settings:
      - to: [External]
        impact: destructive
    - properties: {mode: {enum: [External]}}
      required: [url]
    x-deckhouse-validations:
    - expression: "self.mode != 'External' || self.url.startsWith('https://')"
      message: "external storage needs https"
  tags:
    type: array
    uniqueItems: true
    items: {type: string}
x-deckhouse-validations:
- expression: "self.replicas <= self.maxReplicas"
  message: "replicas must not exceed maxReplicas"
`

var unknownCatalog = Catalog{"storageclasses": {Default: "fast", Available: []string{"fast", "slow"}}}

// skippedLines renders skipped checks as "document path|check|rule|unknown".
func skippedLines(s []Skipped) []string {
	out := []string{}
	for _, x := range s {
		out = append(out, string(x.Document)+" "+x.Path.String()+"|"+x.Check+"|"+x.Rule+"|"+x.Unknown.String())
	}
	return out
}

func problemLines(ps []*Problem) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, string(p.Document)+" "+p.Path.String()+"|"+string(p.Kind)+"|"+p.Rule)
	}
	return out
}

func TestUnknown_PartialEvaluation(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, unknownSettings, "")
	u := Unknown{}
	cases := []struct {
		name        string
		settings    any
		previous    any // a map makes the request an update
		problems    []string
		skipped     []string // "" entries are not checked; nil means: must be empty
		skippedHas  []string // lines that must be among the skipped ones
		effective   map[string]any
		effectiveAt map[string]any // checked keys of Effective only
	}{
		{
			name:       "undeclared sibling of an unknown still fails",
			settings:   map[string]any{"domain": "a.b", "auth": map[string]any{"password": u, "pasword": "x"}},
			problems:   []string{"settings auth.pasword|undeclared|additionalProperties"},
			skippedHas: []string{"settings auth.password|schema|format|auth.password", "settings auth|CEL rule|!has(self.password) || self.password != self.user|auth.password"},
		},
		{
			name:       "wrong type next to an unknown still fails",
			settings:   map[string]any{"domain": "a.b", "replicas": "two", "auth": map[string]any{"password": u}},
			problems:   []string{"settings replicas|type|type"},
			skippedHas: []string{"settings auth.password|schema|minLength|auth.password"},
		},
		{
			name:     "an unknown leaf skips its own keywords and the rules that see it",
			settings: map[string]any{"domain": u},
			problems: []string{},
			skipped: []string{
				"settings |CEL rule|self.replicas <= self.maxReplicas|domain",
				"settings domain|schema|pattern|domain",
				"settings domain|schema|type|domain",
			},
			effectiveAt: map[string]any{"domain": u, "replicas": int64(1)},
		},
		{
			name:     "a required key holding an unknown is present",
			settings: map[string]any{"domain": u, "auth": map[string]any{"password": u}},
			problems: []string{},
		},
		{
			name:       "a required key missing from a known object still fails",
			settings:   map[string]any{"auth": map[string]any{"password": u}},
			problems:   []string{"settings domain|required|required"},
			skippedHas: []string{"settings |CEL rule|self.replicas <= self.maxReplicas|auth.password"},
		},
		{
			name:     "a CEL rule on another subtree still runs",
			settings: map[string]any{"domain": "a.b", "auth": map[string]any{"password": u}, "storage": map[string]any{"mode": "External", "url": "http://x"}},
			problems: []string{"settings storage|cel|self.mode != 'External' || self.url.startsWith('https://')"},
			skippedHas: []string{
				"settings |CEL rule|self.replicas <= self.maxReplicas|auth.password",
				"settings auth|CEL rule|!has(self.password) || self.password != self.user|auth.password",
			},
		},
		{
			name:     "a oneOf over an unknown discriminator is skipped",
			settings: map[string]any{"domain": "a.b", "storage": map[string]any{"mode": u}},
			problems: []string{},
			skippedHas: []string{
				"settings storage|schema|oneOf|storage.mode",
				"settings storage.mode|schema|enum|storage.mode",
				"settings storage|CEL rule|self.mode != 'External' || self.url.startsWith('https://')|storage.mode",
			},
		},
		{
			name:       "uniqueItems over an unknown element is skipped, other elements are checked",
			settings:   map[string]any{"domain": "a.b", "tags": []any{u, u, 3}},
			problems:   []string{"settings tags[2]|type|type"},
			skippedHas: []string{"settings tags|schema|uniqueItems|tags[0]", "settings tags[0]|schema|type|tags[0]"},
		},
		{
			name:        "a default never fills an unknown key, an unknown object keeps no defaults",
			settings:    map[string]any{"domain": "a.b", "replicas": u, "auth": u},
			problems:    []string{},
			effectiveAt: map[string]any{"replicas": u, "auth": u, "maxReplicas": int64(3)},
			skippedHas:  []string{"settings auth|schema|required|auth"},
		},
		{
			name:        "an unknown grantable value is neither defaulted nor checked",
			settings:    map[string]any{"domain": "a.b", "storageClass": u},
			problems:    []string{},
			skippedHas:  []string{"settings storageClass|grant|x-deckhouse-grantable-resource|storageClass"},
			effectiveAt: map[string]any{"storageClass": u},
		},
		{
			name:     "an immutable field changed elsewhere still fails, the unknown one is skipped",
			settings: map[string]any{"domain": "a.b", "storageClass": "slow", "storage": map[string]any{"size": u}},
			previous: map[string]any{"domain": "a.b", "storageClass": "fast", "storage": map[string]any{"mode": "Internal", "size": int64(10)}},
			problems: []string{"settings storageClass|immutable|x-deckhouse-immutable"},
			skippedHas: []string{
				"settings storage.size|immutability|x-deckhouse-immutable|storage.size",
			},
		},
		{
			name:     "an unknown immutable field without a previous value is free",
			settings: map[string]any{"domain": "a.b", "storage": map[string]any{"size": u}},
			previous: map[string]any{"domain": "a.b", "storage": map[string]any{"mode": "Internal"}},
			problems: []string{},
		},
		{
			name:     "an enum switch with an unknown discriminator is skipped",
			settings: map[string]any{"domain": "a.b", "storage": map[string]any{"mode": u}},
			previous: map[string]any{"domain": "a.b", "storage": map[string]any{"mode": "Internal"}},
			problems: []string{},
			skippedHas: []string{
				"settings storage.mode|enum switch|x-deckhouse-enum-switch-settings|storage.mode",
			},
		},
		{
			name:     "an unknown object hides the switches and immutable fields below it",
			settings: map[string]any{"domain": "a.b", "storage": u},
			previous: map[string]any{"domain": "a.b", "storage": map[string]any{"mode": "Internal", "size": int64(1)}},
			problems: []string{},
			skippedHas: []string{
				"settings storage.mode|enum switch|x-deckhouse-enum-switch-settings|storage",
				"settings storage|immutability|x-deckhouse-immutable|storage",
				"settings storage|schema|oneOf|storage",
			},
		},
		{
			name:     "unknown settings skip everything",
			settings: u,
			previous: map[string]any{"domain": "a.b", "storageClass": "fast"},
			problems: []string{},
			skippedHas: []string{
				"settings |CEL rule|self.replicas <= self.maxReplicas|",
				"settings auth|CEL rule|!has(self.password) || self.password != self.user|",
				"settings storageClass|grant|x-deckhouse-grantable-resource|",
				"settings |immutability|x-deckhouse-immutable|",
				"settings storage.mode|enum switch|x-deckhouse-enum-switch-settings|",
				"settings |schema|required|",
			},
		},
		{
			name:     "an unknown previous value is not compared",
			settings: map[string]any{"domain": "a.b", "storageClass": "slow"},
			previous: map[string]any{"domain": "a.b", "storageClass": u},
			problems: []string{},
			skippedHas: []string{
				"previous_settings storageClass|immutability|x-deckhouse-immutable|storageClass",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := Request{Settings: tc.settings, Catalog: unknownCatalog}
			if tc.previous != nil {
				req.Previous, req.HasPrevious = tc.previous, true
			}
			res := p.Evaluate(req)
			if got := problemLines(res.Problems); !reflect.DeepEqual(got, tc.problems) {
				t.Fatalf("problems:\n got %q\nwant %q", got, tc.problems)
			}
			got := skippedLines(res.Skipped)
			if tc.skipped != nil && !reflect.DeepEqual(got, tc.skipped) {
				t.Fatalf("skipped:\n got %q\nwant %q", got, tc.skipped)
			}
			for _, w := range tc.skippedHas {
				if !containsLine(got, w) {
					t.Fatalf("skipped lacks %q:\n%s", w, strings.Join(got, "\n"))
				}
			}
			for k, w := range tc.effectiveAt {
				if !reflect.DeepEqual(res.Effective[k], w) {
					t.Fatalf("effective %s = %#v, want %#v (effective %v)", k, res.Effective[k], w, res.Effective)
				}
			}
			if tc.settings == (Unknown{}) && (res.Effective != nil || res.Values != nil) {
				t.Fatalf("unknown settings computed documents: %v %v", res.Effective, res.Values)
			}
			if len(res.Problems) == 0 && !res.OK() {
				t.Fatal("OK")
			}
		})
	}
}

func containsLine(lines []string, w string) bool {
	for _, l := range lines {
		if l == w {
			return true
		}
	}
	return false
}

func TestUnknown_SkippedIsSortedWithoutDuplicates(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, unknownSettings, "")
	u := Unknown{}
	res := p.Evaluate(Request{Settings: map[string]any{"domain": u, "replicas": u, "auth": map[string]any{"password": u, "user": u}}})
	got := skippedLines(res.Skipped)
	seen := map[string]bool{}
	for i, x := range res.Skipped {
		key := string(x.Document) + x.Path.String() + x.Check + x.Rule
		if seen[key] {
			t.Fatalf("duplicate %q in %q", got[i], got)
		}
		seen[key] = true
		if i > 0 && skippedLess(x, res.Skipped[i-1]) {
			t.Fatalf("not sorted: %q", got)
		}
	}
	// The root rule depends on two unknowns; the first in document order is named.
	if !containsLine(got, "settings |CEL rule|self.replicas <= self.maxReplicas|auth.password") {
		t.Fatalf("got %q", got)
	}
}

func skippedLess(a, b Skipped) bool {
	if a.Document != b.Document {
		return a.Document < b.Document
	}
	if a.Path.String() != b.Path.String() {
		return a.Path.String() < b.Path.String()
	}
	if a.Check != b.Check {
		return a.Check < b.Check
	}
	return a.Rule < b.Rule
}

func TestUnknown_DocumentsWithoutUnknownsSkipNothing(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, unknownSettings, "")
	res := p.Evaluate(Request{Settings: map[string]any{"domain": "a.b", "auth": map[string]any{"password": "c2VjcmV0cGFzcw=="}}, Catalog: unknownCatalog,
		Previous: map[string]any{"domain": "a.b"}, HasPrevious: true})
	if res.Skipped != nil || !res.OK() {
		t.Fatalf("skipped %q problems %q", skippedLines(res.Skipped), problemLines(res.Problems))
	}
}

func TestUnknown_HookValuesCheckWhatIsKnown(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, unknownSettings, `
x-extend: {schema: settings.yaml}
type: object
properties:
  internal:
    type: object
    default: {}
    properties:
      token: {type: string, minLength: 10}
      count: {type: integer}
    x-deckhouse-validations:
    - expression: "!has(self.token) || self.token.size() < 100"
      message: "token too long"
`)
	u := Unknown{}
	res := p.Evaluate(Request{
		Settings:   map[string]any{"domain": "a.b", "auth": map[string]any{"password": "c2VjcmV0cGFzcw=="}},
		HookValues: map[string]any{"internal": map[string]any{"token": u, "count": "many"}},
	})
	if got := problemLines(res.Problems); !reflect.DeepEqual(got, []string{"hook_values internal.count|type|type"}) {
		t.Fatalf("problems %q", got)
	}
	got := skippedLines(res.Skipped)
	for _, w := range []string{
		"hook_values internal.token|schema|minLength|internal.token",
		"hook_values internal|CEL rule|!has(self.token) || self.token.size() < 100|internal.token",
	} {
		if !containsLine(got, w) {
			t.Fatalf("skipped lacks %q: %q", w, got)
		}
	}
	internal, _ := res.Values["internal"].(map[string]any)
	if internal["token"] != u {
		t.Fatalf("values keep the unknown: %v", res.Values)
	}
}
