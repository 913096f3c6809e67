package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestClose_ObjectsClosedUnlessExplicit(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  labels:
    type: object
    additionalProperties: {type: string}
  open:
    type: object
    additionalProperties: true
  typeless:
    properties:
      a: {type: string}
  list:
    type: array
    items:
      type: object
      properties:
        name: {type: string}
  byName:
    type: object
    additionalProperties:
      type: object
      properties:
        port: {type: integer}
  patterned:
    type: object
    patternProperties:
      '^x':
        type: object
        properties:
          w: {type: string}
`, "")
	cases := []struct {
		doc  string
		want []string
	}{
		{"labels: {any: thing}", nil},
		{"open: {any: 1}", nil},
		{"typeless: {b: 1}", []string{"typeless.b|undeclared|additionalProperties"}},
		{"list: [{name: a}, {name: b, extra: 1}]", []string{"list[1].extra|undeclared|additionalProperties"}},
		{"byName: {web: {port: 80, host: x}}", []string{"byName.web.host|undeclared|additionalProperties"}},
		{"patterned: {x1: {w: a, z: b}}", []string{"patterned.x1.z|undeclared|additionalProperties"}},
		{"unknown: 1", []string{"unknown|undeclared|additionalProperties"}},
	}
	for _, tc := range cases {
		if got := check(t, p, tc.doc); !sameLines(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.doc, got, tc.want)
		}
	}
}

func TestClose_ExplicitAdditionalPropertiesFalseAtManyLevels(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
additionalProperties: false
properties:
  a:
    type: object
    additionalProperties: false
    properties:
      b:
        type: object
        additionalProperties: false
        properties:
          c:
            type: object
            additionalProperties: false
            properties:
              d: {type: string}
`, "")
	if got := check(t, p, "a: {b: {c: {d: x}}}"); len(got) != 0 {
		t.Fatal(got)
	}
	want := []string{"a.b.c.e|undeclared|additionalProperties", "a.x|undeclared|additionalProperties"}
	if got := check(t, p, "a: {x: 1, b: {c: {d: x, e: 1}}}"); !sameLines(got, want) {
		t.Fatalf("got %v", got)
	}
}

func TestClose_FieldDeclaredOnlyInBranchIsRejected(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  storage:
    type: object
    properties:
      mode: {type: string, enum: [Internal, External]}
    oneOf:
      - properties:
          mode: {enum: [Internal]}
      - properties:
          mode: {enum: [External]}
          url: {type: string}
`, "")
	got := check(t, p, "storage: {mode: External, url: 'https://x'}")
	if !sameLines(got, []string{"storage.url|undeclared|additionalProperties"}) {
		t.Fatalf("got %v", got)
	}
	if _, closed := p.settings.tree["properties"].(map[string]any)["storage"].(map[string]any)["oneOf"].([]any)[1].(map[string]any)["additionalProperties"]; closed {
		t.Fatal("a oneOf branch was closed")
	}
}

func TestOneOf_EnumDiscriminatedReportsTheApplicableBranch(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  storage:
    type: object
    default: {}
    properties:
      mode: {type: string, enum: [Internal, External]}
      size: {type: string}
      url: {type: string}
    oneOf:
      - properties:
          mode: {enum: [Internal]}
      - properties:
          mode: {enum: [External]}
        required: [url]
`, "")
	for doc, want := range map[string][]string{
		"storage: {mode: Internal}":          nil,
		"storage: {mode: External, url: u}":  nil,
		"storage: {mode: External}":          {"storage.url|required|required"},
		"storage: {mode: Other}":             {"storage.mode|enum|enum", "storage|schema|oneOf"},
		"storage: {mode: Internal, size: 1}": {"storage.size|type|type"},
	} {
		if got := check(t, p, doc); !sameLines(got, want) {
			t.Errorf("%s: got %v, want %v", doc, got, want)
		}
	}
}

func TestOneOf_RequiredOnlyBranches(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  auth:
    type: object
    properties:
      password: {type: string}
      token: {type: string}
    oneOf:
      - required: [password]
      - required: [token]
`, "")
	for doc, want := range map[string][]string{
		"auth: {password: p}":           nil,
		"auth: {token: t}":              nil,
		"auth: {}":                      {"auth|schema|oneOf"},
		"auth: {password: p, token: t}": {"auth|schema|oneOf"},
	} {
		if got := check(t, p, doc); !sameLines(got, want) {
			t.Errorf("%s: got %v, want %v", doc, got, want)
		}
	}
	ps := p.settings.validate(DocSettings, yamlValue(t, "auth: {}"))
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "password") || !strings.Contains(ps[0].Message, "token") || strings.Count(ps[0].Message, "\n") > 0 {
		t.Fatalf("summary should be one line naming both alternatives: %q", ps[0].Message)
	}
}

func TestOneOf_TypelessBranches(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  size:
    oneOf:
      - type: integer
        minimum: 1
      - type: string
        pattern: '^[0-9]+Gi$'
`, "")
	for doc, want := range map[string][]string{
		"size: 3":    nil,
		"size: 10Gi": nil,
		"size: 0":    {"size|schema|minimum"},
		"size: 10Mi": {"size|pattern|pattern"},
		"size: true": {"size|schema|oneOf"},
	} {
		if got := check(t, p, doc); !sameLines(got, want) {
			t.Errorf("%s: got %v, want %v", doc, got, want)
		}
	}
}

func TestNullable_AdmitsNullOnlyWhenSet(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  a: {type: string, nullable: true, minLength: 3}
  b: {type: string}
  c: {type: object, nullable: true, required: [x], properties: {x: {type: string}}}
  d: {nullable: true, oneOf: [{type: string}, {type: integer}]}
`, "")
	for doc, want := range map[string][]string{
		"a: null": nil,
		"b: null": {"b|type|type"},
		"c: null": nil,
		"d: null": nil,
		"a: ab":   {"a|schema|minLength"},
	} {
		if got := check(t, p, doc); !sameLines(got, want) {
			t.Errorf("%s: got %v, want %v", doc, got, want)
		}
	}
}

func TestNull_NeverMatchesAnEnum(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  level: {type: string, nullable: true, enum: [Info, Debug, null]}
  plain: {type: string, enum: [Info]}
`, "")
	for doc, want := range map[string][]string{
		"level: Info":  nil,
		"level: null":  {"level|enum|enum"},
		"plain: null":  {"plain|type|type"},
		"plain: Other": {"plain|enum|enum"},
	} {
		if got := check(t, p, doc); !sameLines(got, want) {
			t.Errorf("%s: got %v, want %v", doc, got, want)
		}
	}
}

func TestDialect_Draft4BooleanExclusiveBounds(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, "type: object\nproperties:\n  r: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true}\n", "")
	for doc, want := range map[string][]string{
		"r: 0.5": nil,
		"r: 0":   {"r|schema|exclusiveMinimum"},
		"r: 1":   {"r|schema|exclusiveMaximum"},
	} {
		if got := check(t, p, doc); !sameLines(got, want) {
			t.Errorf("%s: got %v, want %v", doc, got, want)
		}
	}
}

func TestDialect_SchemaKeywordDoesNotSwitchDialect(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"http://json-schema.org/schema#", "https://json-schema.org/draft/2020-12/schema"} {
		p := loadSchemas(t, "$schema: '"+s+"'\ntype: object\nproperties:\n  r: {type: number, maximum: 1, exclusiveMaximum: true}\n", "")
		if got := check(t, p, "r: 1"); !sameLines(got, []string{"r|schema|exclusiveMaximum"}) {
			t.Errorf("%s: draft-4 exclusiveMaximum not applied: %v", s, got)
		}
	}
}

func TestDialect_OpenAPIKeywordsDoNotBreakCompilation(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
x-config-version: 2
example: {a: b}
required: []
properties:
  a:
    type: string
    example: x
    x-examples: [y]
    x-doc-default: z
    nullable: false
    readOnly: true
    format: some-unknown-format
`, "")
	if got := check(t, p, "a: anything"); len(got) != 0 {
		t.Fatal(got)
	}
}

func TestFormats_KnownAssertedUnknownIgnored(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
properties:
  uri: {type: string, format: uri}
  email: {type: string, format: email}
  host: {type: string, format: hostname}
  v4: {type: string, format: ipv4}
  v6: {type: string, format: ipv6}
  cidr: {type: string, format: cidr}
  mac: {type: string, format: mac}
  uuid: {type: string, format: uuid}
  date: {type: string, format: date}
  ts: {type: string, format: date-time}
  dur: {type: string, format: duration}
  b64: {type: string, format: byte}
  re: {type: string, format: regex}
  other: {type: string, format: frobnicate}
`, "")
	good := map[string]string{
		"uri": "https://example.com/x", "email": "a@example.com", "host": "app.example.com", "v4": "10.0.0.1",
		"v6": "fd00::1", "cidr": "10.0.0.0/8", "mac": "00:11:22:33:44:55", "uuid": "123e4567-e89b-12d3-a456-426614174000",
		"date": "2024-02-29", "ts": "2024-02-29T10:00:00Z", "dur": "1h30m", "b64": "aGVsbG8=",
		"re": "([unclosed", "other": "anything",
	}
	bad := map[string]string{
		"uri": "not a uri", "email": "nobody", "host": "-bad-.example", "v4": "300.1.1.1", "v6": "10.0.0.1",
		"cidr": "10.0.0.0", "mac": "00:11", "uuid": "1234", "date": "2024-02-30", "ts": "yesterday",
		"dur": "P1D", "b64": "***",
	}
	for k, v := range good {
		doc, _ := json.Marshal(map[string]string{k: v})
		if got := check(t, p, string(doc)); len(got) != 0 {
			t.Errorf("%s=%q rejected: %v", k, v, got)
		}
	}
	for k, v := range bad {
		doc, _ := json.Marshal(map[string]string{k: v})
		if got := check(t, p, string(doc)); !sameLines(got, []string{k + "|schema|format"}) {
			t.Errorf("%s=%q: got %v", k, v, got)
		}
	}
}

func TestValidate_UIValidationMessageReplacesText(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
required: [domain]
properties:
  domain:
    type: string
    pattern: '^[a-z0-9.-]+$'
    x-deckhouse-ui-validation-message: "Enter a domain name, for example, app.example.com."
  plain:
    type: string
    pattern: '^[a-z]+$'
`, "")
	ps := p.settings.validate(DocSettings, yamlValue(t, "domain: 'Not A Domain'\nplain: 'X'"))
	if len(ps) != 2 {
		t.Fatalf("got %v", ps)
	}
	if ps[0].Message != "Enter a domain name, for example, app.example.com." || ps[0].Kind != KindPattern {
		t.Errorf("domain: %+v", ps[0])
	}
	if !strings.Contains(ps[1].Message, "^[a-z]+$") {
		t.Errorf("plain: %+v", ps[1])
	}
	ps = p.settings.validate(DocSettings, map[string]any{})
	if len(ps) != 1 || ps[0].Message != "Enter a domain name, for example, app.example.com." || ps[0].Path.String() != "domain" {
		t.Errorf("required: %+v", ps)
	}
}

func TestValidate_PathsAndKinds(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, `
type: object
required: [name]
properties:
  name: {type: string}
  replicas: {type: integer, minimum: 1}
  nodes:
    type: array
    items:
      type: object
      required: [host]
      properties:
        host: {type: string}
`, "")
	ps := p.settings.validate(DocSettings, map[string]any{
		"replicas": json.Number("0"),
		"nodes":    []any{map[string]any{"host": "a"}, map[string]any{"port": 1}},
		"x":        1,
	})
	want := []struct {
		path string
		kind Kind
		rule string
		segs int
	}{
		{"name", KindRequired, "required", 1},
		{"nodes[1].host", KindRequired, "required", 3},
		{"nodes[1].port", KindUndeclared, "additionalProperties", 3},
		{"replicas", KindSchema, "minimum", 1},
		{"x", KindUndeclared, "additionalProperties", 1},
	}
	if len(ps) != len(want) {
		t.Fatalf("got %v", ps)
	}
	for i, w := range want {
		if ps[i].Path.String() != w.path || ps[i].Kind != w.kind || ps[i].Rule != w.rule || len(ps[i].Path) != w.segs || ps[i].Document != DocSettings || ps[i].Message == "" {
			t.Errorf("problem %d = %+v, want %+v", i, ps[i], w)
		}
	}
	if !ps[1].Path[1].IsIndex || ps[1].Path[1].Index != 1 {
		t.Errorf("index segment: %+v", ps[1].Path)
	}
}

func TestValidate_NumbersOfAnyGoTypeAreNormalised(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, "type: object\nproperties:\n  num: {type: integer, maximum: 10}\n", "")
	for _, v := range []any{int(3), int64(3), float64(3), json.Number("3"), uint8(3)} {
		if ps := p.settings.validate(DocSettings, map[string]any{"num": v}); len(ps) != 0 {
			t.Errorf("%T: %v", v, ps)
		}
	}
	for _, v := range []any{int(11), float64(3.5), json.Number("11")} {
		if ps := p.settings.validate(DocSettings, map[string]any{"num": v}); len(ps) != 1 {
			t.Errorf("%T %v: %v", v, v, ps)
		}
	}
}

func TestValidate_DeepSettingsAreAProblemNotACrash(t *testing.T) {
	t.Parallel()
	p := loadSchemas(t, "type: object\nadditionalProperties: true\n", "")
	var v any = "leaf"
	for i := 0; i < 10000; i++ {
		v = map[string]any{"a": v}
	}
	ps := p.settings.validate(DocSettings, v)
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "deeper") {
		t.Fatalf("got %v", ps)
	}
}
