package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

const replicasSchema = `
type: object
properties:
  replicas: {type: integer, default: 1}
  maxReplicas: {type: integer, default: 3}
x-deckhouse-validations:
- expression: "self.replicas <= self.maxReplicas"
  message: "replicas must not exceed maxReplicas"
`

func TestCEL_FailureCarriesRuleMessageVerbatim(t *testing.T) {
	ps := celProblems(t, replicasSchema, `{replicas: 5, maxReplicas: 3}`, celWithoutOldSelf, "")
	if len(ps) != 1 {
		t.Fatalf("want 1 problem, got %v", problemSummary(ps))
	}
	p := ps[0]
	if p.Kind != KindCEL || p.Message != "replicas must not exceed maxReplicas" || p.Rule != "self.replicas <= self.maxReplicas" || len(p.Path) != 0 {
		t.Fatalf("unexpected problem %+v", p)
	}
	if ps := celProblems(t, replicasSchema, `{replicas: 2, maxReplicas: 3}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("valid document rejected: %v", problemSummary(ps))
	}
}

func TestCEL_MissingKeyPasses(t *testing.T) {
	// CEL runs on the raw settings: maxReplicas is not given, so the rule
	// hits a missing key, which counts as a pass.
	if ps := celProblems(t, replicasSchema, `{replicas: 5}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("missing key must pass, got %v", problemSummary(ps))
	}
}

func TestCEL_SelfIsTheValueAtTheRuleLevel(t *testing.T) {
	schema := `
type: object
properties:
  storage:
    type: object
    properties:
      size: {type: string}
      mode: {type: string}
    x-deckhouse-validations:
    - expression: "!has(self.size) || self.mode == 'Internal'"
      message: "size is only for Internal storage"
`
	ps := celProblems(t, schema, `{storage: {size: 1Gi, mode: External}}`, celWithoutOldSelf, "")
	if len(ps) != 1 || ps[0].Path.String() != "storage" || ps[0].Message != "size is only for Internal storage" {
		t.Fatalf("got %v", problemSummary(ps))
	}
	if ps := celProblems(t, schema, `{storage: {mode: External}}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("has() guard must pass, got %v", problemSummary(ps))
	}
	if ps := celProblems(t, schema, `{}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("a level that does not exist runs no rule, got %v", problemSummary(ps))
	}
}

func TestCEL_RulesRunInsideArrayItems(t *testing.T) {
	schema := `
type: object
properties:
  users:
    type: array
    items:
      type: object
      properties:
        name: {type: string}
      x-deckhouse-validations:
      - expression: "self.name != 'root'"
        message: "root is reserved"
`
	ps := celProblems(t, schema, `{users: [{name: a}, {name: root}, {name: root}]}`, celWithoutOldSelf, "")
	got := problemSummary(ps)
	want := []string{"settings cel users[1]: root is reserved", "settings cel users[2]: root is reserved"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestCEL_RulesRunInsideMapValues(t *testing.T) {
	schema := `
type: object
properties:
  limits:
    type: object
    additionalProperties:
      type: integer
      x-deckhouse-validations:
      - expression: "self > 0"
        message: "must be positive"
  byPattern:
    type: object
    patternProperties:
      "^x-":
        type: string
        x-deckhouse-validations:
        - expression: "self.startsWith('ok')"
          message: "must start with ok"
`
	ps := celProblems(t, schema, `{limits: {a: 1, b: 0}, byPattern: {x-1: bad, x-2: okay}}`, celWithoutOldSelf, "")
	got := fmt.Sprint(problemSummary(ps))
	want := fmt.Sprint([]string{"settings cel limits.b: must be positive", "settings cel byPattern.x-1: must start with ok"})
	if got != want && got != fmt.Sprint([]string{"settings cel byPattern.x-1: must start with ok", "settings cel limits.b: must be positive"}) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A declared property is governed by its own schema: the rules of
// additionalProperties or of a matching pattern do not reach it, as the
// value's schema would not either.
func TestCEL_DeclaredPropertyDoesNotGetAdditionalOrPatternRules(t *testing.T) {
	schema := `
type: object
properties:
  labels:
    type: object
    properties:
      team: {type: integer}
      x-owner: {type: string}
    patternProperties:
      "^x-":
        type: string
        x-deckhouse-validations:
        - {expression: "self.startsWith('ok')", message: "must start with ok"}
    additionalProperties:
      type: integer
      x-deckhouse-validations:
      - {expression: "self > 0", message: "must be positive"}
`
	ps := celProblems(t, schema, `{labels: {team: 0, x-owner: bad, extra: 0, x-other: bad}}`, celWithoutOldSelf, "")
	got := fmt.Sprint(problemSummary(ps))
	want := fmt.Sprint([]string{"settings cel labels.extra: must be positive", "settings cel labels.x-other: must start with ok"})
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

const oldSelfSchema = `
type: object
properties:
  size:
    type: integer
    x-deckhouse-validations:
    - expression: "self >= oldSelf"
      message: "size can only grow"
`

func TestCEL_OldSelfSkippedOnInstall(t *testing.T) {
	if ps := celProblems(t, oldSelfSchema, `{size: 1}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("oldSelf rule ran on install: %v", problemSummary(ps))
	}
}

func TestCEL_OldSelfRunsOnUpdateWhereOldValueExists(t *testing.T) {
	ps := celProblems(t, oldSelfSchema, `{size: 1}`, celWithOldSelf, `{size: 2}`)
	if len(ps) != 1 || ps[0].Message != "size can only grow" || ps[0].Path.String() != "size" {
		t.Fatalf("got %v", problemSummary(ps))
	}
	if ps := celProblems(t, oldSelfSchema, `{size: 3}`, celWithOldSelf, `{size: 2}`); len(ps) != 0 {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

func TestCEL_OldSelfSkippedWhereNoOldValue(t *testing.T) {
	if ps := celProblems(t, oldSelfSchema, `{size: 1}`, celWithOldSelf, `{other: 1}`); len(ps) != 0 {
		t.Fatalf("oldSelf rule ran without an old value: %v", problemSummary(ps))
	}
}

func TestCEL_OldSelfPassRunsOnlyOldSelfRules(t *testing.T) {
	// On update the rules without oldSelf ran in the first pass already; the
	// oldSelf pass must not report them twice.
	ps := celProblems(t, replicasSchema, `{replicas: 5, maxReplicas: 3}`, celWithOldSelf, `{replicas: 1}`)
	if len(ps) != 0 {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

func TestCEL_OldSelfDetectedFromCheckedExpressionNotText(t *testing.T) {
	n := mustRules(t, `
type: object
properties:
  a:
    type: string
    x-deckhouse-validations:
    - expression: "self != 'oldSelf'"
      message: "literal"
    - expression: "oldSelf == self"
      message: "frozen"
`)
	rules := n.props["a"].rules
	if rules[0].usesOld || !rules[1].usesOld {
		t.Fatalf("usesOld = %v, %v; want false, true", rules[0].usesOld, rules[1].usesOld)
	}
}

func TestCEL_NumbersAreDoubles(t *testing.T) {
	schema := `
type: object
properties:
  n: {type: integer}
x-deckhouse-validations:
- expression: "type(self.n) == double"
  message: "numbers must be doubles"
- expression: "self.n / 2.0 == 1.5"
  message: "half must be 1.5"
`
	if ps := celProblems(t, schema, `{n: 3}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

func TestCEL_NonBoolResultAtRuntimeIsError(t *testing.T) {
	schema := `
type: object
x-deckhouse-validations:
- expression: "self.name"
  message: "name rule"
`
	ps := celProblems(t, schema, `{name: x}`, celWithoutOldSelf, "")
	if len(ps) != 1 || !strings.HasPrefix(ps[0].Message, "name rule (") || !strings.Contains(ps[0].Message, "not a bool") {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

func TestCEL_EvaluationErrorOtherThanMissingKeyIsError(t *testing.T) {
	schema := `
type: object
x-deckhouse-validations:
- expression: "self.a + 1 > 0"
  message: "a must be positive"
`
	// a is a double, 1 an int: no such overload, which is not a pass.
	ps := celProblems(t, schema, `{a: 1}`, celWithoutOldSelf, "")
	if len(ps) != 1 || ps[0].Kind != KindCEL || !strings.HasPrefix(ps[0].Message, "a must be positive (") {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

// DP's ValidateTransition visits every key present, null included, and binds
// self to CEL null there; an old null is no old value.
func TestCEL_NullRunsTheRulesAsDPDoes(t *testing.T) {
	cases := []struct {
		name, rule, doc, old string
		mode                 celMode
		want                 string // "" for a pass, else the start of the one problem's message
	}{
		{"a comparison on null is false", "self == 'a'", `{o: null}`, "", celWithoutOldSelf, "rule failed"},
		{"a call on null is an evaluation error, which rejects", "self.size() > 0", `{o: null}`, "", celWithoutOldSelf, "rule failed (rule \"self.size() > 0\" could not be evaluated"},
		{"a field of null is a missing key, which passes", "self.a == 1", `{o: null}`, "", celWithoutOldSelf, ""},
		{"a rule that admits null passes", "self == null || self.size() > 0", `{o: null}`, "", celWithoutOldSelf, ""},
		{"a new null against an old value", "self == oldSelf", `{o: null}`, `{o: a}`, celWithOldSelf, "rule failed"},
		{"an old null is no old value", "self == oldSelf", `{o: b}`, `{o: null}`, celWithOldSelf, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schema := "type: object\nproperties:\n  o:\n    type: string\n    nullable: true\n    x-deckhouse-validations:\n" +
				"    - expression: " + strconv.Quote(tc.rule) + "\n      message: rule failed\n"
			ps := celProblems(t, schema, tc.doc, tc.mode, tc.old)
			switch {
			case tc.want == "" && len(ps) != 0:
				t.Fatalf("want a pass, got %v", problemSummary(ps))
			case tc.want != "" && (len(ps) != 1 || !strings.HasPrefix(ps[0].Message, tc.want) || ps[0].Path.String() != "o"):
				t.Fatalf("want one problem at o starting %q, got %v", tc.want, problemSummary(ps))
			}
		})
	}
}

func TestCEL_DurationAndStringExtensions(t *testing.T) {
	schema := `
type: object
properties:
  interval: {type: string}
  name: {type: string}
x-deckhouse-validations:
- expression: "!has(self.interval) || duration(self.interval) >= duration('30s')"
  message: "interval must be at least 30s"
- expression: "!has(self.name) || self.name.lowerAscii() == self.name"
  message: "name must be lower case"
`
	ps := celProblems(t, schema, `{interval: 10s, name: Abc}`, celWithoutOldSelf, "")
	got := problemSummary(ps)
	if len(got) != 2 {
		t.Fatalf("got %v", got)
	}
	if ps := celProblems(t, schema, `{interval: 1m30s, name: abc}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

func TestCEL_RulesOfAllOfBranchesAlwaysApply(t *testing.T) {
	schema := `
type: object
properties:
  a: {type: integer}
allOf:
- x-deckhouse-validations:
  - expression: "!has(self.a) || self.a < 10"
    message: "a must be below 10"
`
	if ps := celProblems(t, schema, `{a: 11}`, celWithoutOldSelf, ""); len(ps) != 1 {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

func TestCEL_RulesOfOneOfBranchApplyToTheSelectedBranch(t *testing.T) {
	schema := `
type: object
properties:
  mode: {type: string, enum: [Internal, External]}
  url: {type: string}
oneOf:
- properties:
    mode: {enum: [Internal]}
- properties:
    mode: {enum: [External]}
  required: [url]
  x-deckhouse-validations:
  - expression: "self.url.startsWith('https://')"
    message: "url must use https"
`
	if ps := celProblems(t, schema, `{mode: Internal, url: "http://x"}`, celWithoutOldSelf, ""); len(ps) != 0 {
		t.Fatalf("rule of an unselected branch ran: %v", problemSummary(ps))
	}
	if ps := celProblems(t, schema, `{mode: External, url: "http://x"}`, celWithoutOldSelf, ""); len(ps) != 1 {
		t.Fatalf("rule of the selected branch did not run: %v", problemSummary(ps))
	}
}

func TestCEL_RunawayExpressionIsBoundedAndNamed(t *testing.T) {
	schema := `
type: object
properties:
  items: {type: array, items: {type: integer}}
x-deckhouse-validations:
- expression: "self.items.all(a, self.items.all(b, self.items.all(c, a + b + c >= 0.0)))"
  message: "items must be non-negative"
`
	list := make([]string, 300)
	for i := range list {
		list[i] = "1"
	}
	start := time.Now()
	ps := celProblems(t, schema, "{items: ["+strings.Join(list, ",")+"]}", celWithoutOldSelf, "")
	// The cost limit stops it after about a second on a slow machine (10 to
	// 30 s under the race detector on a busy 2-core one); the evaluation
	// timeout stops it first when the machine is busier still. The bound
	// here only proves it never hangs.
	if d := time.Since(start); d > 90*time.Second {
		t.Fatalf("runaway expression took %s", d)
	}
	bounded := len(ps) == 1 && (strings.Contains(ps[0].Message, "cost exceeds the limit") || strings.Contains(ps[0].Message, "CEL evaluation exceeded"))
	if !bounded || !strings.Contains(ps[0].Message, "self.items.all(a") {
		t.Fatalf("got %v", problemSummary(ps))
	}
}

func TestCEL_CompileErrorNamesFileSchemaPathAndExpression(t *testing.T) {
	cases := []struct {
		name, schema, path, contains string
	}{
		{"syntax error", `
properties:
  storage:
    type: object
    x-deckhouse-validations:
    - expression: "self.a =="
      message: m`, "/properties/storage/x-deckhouse-validations/0", `"self.a =="`},
		{"undeclared variable", `
x-deckhouse-validations:
- expression: "foo > 1"
  message: m`, "/x-deckhouse-validations/0", "undeclared reference"},
		{"static non-bool result", `
properties:
  a:
    type: array
    items:
      x-deckhouse-validations:
      - {expression: "self.size()", message: m}
      - {expression: "1 + 2", message: m}`, "/properties/a/items/x-deckhouse-validations/0", "must return a bool"},
		{"missing message", `
x-deckhouse-validations:
- expression: "true"`, "/x-deckhouse-validations/0", "non-empty string message"},
		{"empty message", `
x-deckhouse-validations:
- {expression: "true", message: ""}`, "/x-deckhouse-validations/0", "non-empty string message"},
		{"missing expression", `
x-deckhouse-validations:
- message: m`, "/x-deckhouse-validations/0", "non-empty string expression"},
		{"kubernetes rule key", `
x-deckhouse-validations:
- {rule: "true", message: m}`, "/x-deckhouse-validations/0", `"rule" is not used by DP`},
		{"not a list", `
x-deckhouse-validations: {expression: "true", message: m}`, "/x-deckhouse-validations", "must be a list"},
		{"item not an object", `
x-deckhouse-validations: ["true"]`, "/x-deckhouse-validations/0", "must be an object"},
		{"in additionalProperties", `
additionalProperties:
  x-deckhouse-validations:
  - {expression: "self >", message: m}`, "/additionalProperties/x-deckhouse-validations/0", "does not compile"},
		{"in oneOf branch", `
oneOf:
- {}
- x-deckhouse-validations:
  - {expression: "self.", message: m}`, "/oneOf/1/x-deckhouse-validations/0", "does not compile"},
		{"escaped property name", `
properties:
  a/b:
    x-deckhouse-validations:
    - {expression: ")", message: m}`, "/properties/a~1b/x-deckhouse-validations/0", "does not compile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileRules("openapi/settings.yaml", yamlTree(t, tc.schema))
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("want *SchemaError, got %v", err)
			}
			if se.File != "openapi/settings.yaml" || se.SchemaPath != tc.path || !strings.Contains(se.Message, tc.contains) {
				t.Fatalf("got %q", se.Error())
			}
		})
	}
}

func TestCEL_ExtraRuleKeysAreAccepted(t *testing.T) {
	n := mustRules(t, `
x-deckhouse-validations:
- expression: "true"
  message: m
  messageExpression: "'x'"
  reason: FieldValueInvalid
  fieldPath: .a
`)
	if n == nil || len(n.rules) != 1 {
		t.Fatalf("rule not compiled")
	}
}

func TestCEL_SchemaWithoutRulesCompilesToNil(t *testing.T) {
	n := mustRules(t, `{type: object, properties: {a: {type: string}, b: {type: array, items: {type: object}}}}`)
	if n != nil {
		t.Fatalf("want nil rule tree, got %+v", n)
	}
}

func TestCEL_OldSelfMatchesArrayElementsByIndexAndMapValuesByKey(t *testing.T) {
	schema := `
type: object
properties:
  disks:
    type: array
    items:
      type: integer
      x-deckhouse-validations:
      - {expression: "self >= oldSelf", message: "a disk can only grow"}
  pools:
    type: object
    additionalProperties:
      type: integer
      x-deckhouse-validations:
      - {expression: "self >= oldSelf", message: "a pool can only grow"}
`
	ps := celProblems(t, schema, `{disks: [5, 1, 1], pools: {a: 1, b: 1}}`, celWithOldSelf, `{disks: [1, 2], pools: {a: 2, c: 9}}`)
	sortProblems(ps)
	got := fmt.Sprint(problemSummary(ps))
	want := fmt.Sprint([]string{"settings cel disks[1]: a disk can only grow", "settings cel pools.a: a pool can only grow"})
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestCEL_NoSecondProblemWhereTheSchemaAlreadyFailed(t *testing.T) {
	n := mustRules(t, `
type: object
properties:
  storage:
    type: object
    x-deckhouse-validations:
    - {expression: "self.size > 1.0", message: "size must exceed 1"}
`)
	doc := celView(yamlValue(t, `{storage: {size: big}}`))
	schemaProblem := &Problem{Document: DocSettings, Path: Path{}.Key("storage").Key("size"), Kind: KindType, Message: "must be number"}
	if ps := runRules(n, DocSettings, celWithoutOldSelf, doc, nil, false, []*Problem{schemaProblem}); len(ps) != 0 {
		t.Fatalf("got %v", problemSummary(ps))
	}
	if ps := runRules(n, DocSettings, celWithoutOldSelf, doc, nil, false, nil); len(ps) != 1 {
		t.Fatalf("without a schema problem the evaluation error must be reported, got %v", problemSummary(ps))
	}
}

// TestOldSelf_BoundToPreviousRawSettings: oldSelf is the previous settings
// as the user wrote them (no defaults), so a rule over a defaulted field
// passes when the user never wrote it, as in DP.
func TestOldSelf_BoundToPreviousRawSettings(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, `
type: object
properties:
  replicas:
    type: integer
    default: 3
    x-deckhouse-validations:
      - expression: "self >= oldSelf"
        message: "replicas can only grow"
`, "")
	cases := []struct {
		name   string
		raw    any
		hasRaw bool
		want   int
	}{
		{"raw without the key: missing oldSelf passes", map[string]any{}, true, 0},
		{"raw with a larger value", map[string]any{"replicas": 5}, true, 1},
		{"raw null is an empty object", nil, true, 0},
		{"no raw: oldSelf is Previous as given", nil, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := p.Evaluate(Request{Settings: map[string]any{"replicas": 2}, Previous: map[string]any{"replicas": 3}, HasPrevious: true,
				PreviousRaw: tc.raw, HasPreviousRaw: tc.hasRaw})
			if len(res.Problems) != tc.want {
				t.Fatalf("got %v", problemSummary(res.Problems))
			}
		})
	}
}
