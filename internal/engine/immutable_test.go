package engine

import (
	"fmt"
	"testing"
)

const immutableSchema = `
type: object
properties:
  storageClass:
    type: string
    default: default
    x-deckhouse-immutable: true
  notReally:
    type: string
    x-deckhouse-immutable: "true"
  disabled:
    type: string
    x-deckhouse-immutable: false
  postgres:
    type: object
    properties:
      storageClass: {type: string, x-deckhouse-immutable: true}
      volumeSize: {type: string}
  frozen:
    type: object
    x-deckhouse-immutable: true
    properties:
      a: {type: string}
      b: {type: object, properties: {c: {type: integer}}}
      list: {type: array, items: {type: string}}
  disks:
    type: array
    items:
      type: object
      properties:
        name: {type: string, x-deckhouse-immutable: true}
        size: {type: string}
  pools:
    type: object
    additionalProperties:
      type: object
      properties:
        zone: {type: string, x-deckhouse-immutable: true}
`

// immutableProblems compares the settings doc with prev, both defaulted.
func immutableProblems(t *testing.T, doc, prev string) []string {
	t.Helper()
	tree := yamlTree(t, immutableSchema)
	var ps []*Problem
	checkImmutable(tree, yamlTree(t, prev), yamlTree(t, doc), &ps)
	sortProblems(ps)
	out := make([]string, len(ps))
	for i, p := range ps {
		if p.Kind != KindImmutable || p.Rule != "x-deckhouse-immutable" {
			t.Fatalf("unexpected problem %+v", p)
		}
		out[i] = p.Path.String() + ": " + p.Message
	}
	return out
}

func expectImmutable(t *testing.T, doc, prev string, paths ...string) {
	t.Helper()
	got := immutableProblems(t, doc, prev)
	want := make([]string, len(paths))
	for i, p := range paths {
		want[i] = p + ": " + immutableMessage(pathOf(p))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// pathOf is only used to render the expected message, which needs the string form.
func pathOf(s string) Path { return Path{{Key: s}} }

func TestImmutable_ChangedValueIsRejectedWithDPText(t *testing.T) {
	got := immutableProblems(t, `{storageClass: fast}`, `{storageClass: slow}`)
	want := `storageClass: field "storageClass" is immutable: it can only be set when the application is created`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %q", got)
	}
}

func TestImmutable_OnlyBooleanTrueCounts(t *testing.T) {
	expectImmutable(t, `{notReally: b, disabled: b}`, `{notReally: a, disabled: a, storageClass: default}`)
}

func TestImmutable_ComparedOnEffectiveSettings(t *testing.T) {
	// Omitting the field is fine when its default equals the applied value…
	expectImmutable(t, `{}`, `{storageClass: default}`)
	// …and a change when the applied value differs from the default.
	expectImmutable(t, `{}`, `{storageClass: fast}`, "storageClass")
}

func TestImmutable_FieldFreezesOnlyItself(t *testing.T) {
	expectImmutable(t, `{postgres: {storageClass: a, volumeSize: 2Gi}}`, `{storageClass: default, postgres: {storageClass: a, volumeSize: 1Gi}}`)
	expectImmutable(t, `{postgres: {storageClass: b, volumeSize: 1Gi}}`, `{storageClass: default, postgres: {storageClass: a, volumeSize: 1Gi}}`, "postgres.storageClass")
}

// TestImmutable_MarkedNodeComparedWhole: a marked object is one value; a
// change anywhere below it is reported once, at the marked node.
func TestImmutable_MarkedNodeComparedWhole(t *testing.T) {
	prev := `{storageClass: default, frozen: {a: x, b: {c: 1}, list: [p, q]}}`
	expectImmutable(t, `{frozen: {a: x, b: {c: 1}, list: [p, q]}}`, prev)
	expectImmutable(t, `{frozen: {a: y, b: {c: 2}, list: [p, r]}}`, prev, "frozen")
}

// TestImmutable_AddedKeyUnderMarkedObjectIsAChange: a key or an element
// added under a marked object or array changes the marked value.
func TestImmutable_AddedKeyUnderMarkedObjectIsAChange(t *testing.T) {
	expectImmutable(t, `{frozen: {a: x, b: {c: 1}}}`, `{storageClass: default, frozen: {a: x}}`, "frozen")
	expectImmutable(t, `{frozen: {list: [p, q, r]}}`, `{storageClass: default, frozen: {list: [p, q]}}`, "frozen")
}

func TestImmutable_NeverSetValueIsFree(t *testing.T) {
	expectImmutable(t, `{postgres: {storageClass: a}}`, `{storageClass: default}`)
	expectImmutable(t, `{postgres: {storageClass: a}}`, `{storageClass: default, postgres: {storageClass: null}}`)
	expectImmutable(t, `{frozen: {a: x}}`, `{storageClass: default, frozen: null}`)
}

func TestImmutable_NewArrayElementIsFree(t *testing.T) {
	prev := `{storageClass: default, disks: [{name: a}]}`
	expectImmutable(t, `{disks: [{name: a}, {name: b}]}`, prev)
	expectImmutable(t, `{disks: [{name: z}, {name: b}]}`, prev, "disks[0].name")
}

func TestImmutable_NewMapEntryIsFree(t *testing.T) {
	prev := `{storageClass: default, pools: {a: {zone: z1}}}`
	expectImmutable(t, `{pools: {a: {zone: z1}, b: {zone: z2}}}`, prev)
	expectImmutable(t, `{pools: {a: {zone: z9}}}`, prev, "pools.a.zone")
}

func TestImmutable_RemovingFrozenObjectIsRejected(t *testing.T) {
	expectImmutable(t, `{}`, `{storageClass: default, frozen: {a: x}}`, "frozen")
	// Removing the parent of an immutable field loses the frozen value too.
	expectImmutable(t, `{}`, `{storageClass: default, postgres: {storageClass: a}}`, "postgres.storageClass")
}

func TestImmutable_RemovingFrozenFieldIsRejected(t *testing.T) {
	expectImmutable(t, `{postgres: {}}`, `{storageClass: default, postgres: {storageClass: a}}`, "postgres.storageClass")
	expectImmutable(t, `{frozen: {}}`, `{storageClass: default, frozen: {a: x}}`, "frozen")
	expectImmutable(t, `{disks: []}`, `{storageClass: default, disks: [{name: a}]}`, "disks[0].name")
}

func TestImmutable_NumbersCompareByValue(t *testing.T) {
	tree := yamlTree(t, `{properties: {n: {type: integer, x-deckhouse-immutable: true}}}`)
	var ps []*Problem
	checkImmutable(tree, map[string]any{"n": float64(3)}, map[string]any{"n": int64(3)}, &ps)
	if len(ps) != 0 {
		t.Fatal(problemSummary(ps))
	}
}

func TestImmutable_PathRendersIndexes(t *testing.T) {
	p := Path{}.Key("a").Key("b").Index(0).Key("c")
	want := `field "a.b[0].c" is immutable: it can only be set when the application is created`
	if got := immutableMessage(p); got != want {
		t.Fatalf("got %q", got)
	}
}

// TestImmutable_DefaultsAppliedToBothSidesInEveryMode: the previous
// document gets the schema defaults before the comparison whether it is the
// last applied configuration or the old spec.settings, as DP's webhook
// does; oldSelf sees the previous settings without defaults.
func TestImmutable_DefaultsAppliedToBothSidesInEveryMode(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, `
type: object
properties:
  storageClass: {type: string, default: default, x-deckhouse-immutable: true}
  db:
    type: object
    default: {}
    properties:
      engine: {type: string, default: pg, x-deckhouse-immutable: true}
  mode:
    type: string
    default: A
    x-deckhouse-validations:
      - expression: "self == oldSelf || oldSelf != 'A'"
        message: "mode A cannot be left"
`, "")
	cases := []struct {
		name     string
		settings string
		previous string
		raw      bool
		want     []string
	}{
		{"omitted default field changed, raw previous", `{storageClass: fast}`, `{}`, true,
			[]string{"settings immutable storageClass"}},
		{"omitted nested default changed, raw previous", `{db: {engine: mysql}}`, `{}`, true,
			[]string{"settings immutable db.engine"}},
		{"same default on both sides, raw previous", `{}`, `{}`, true, nil},
		{"given value equal to the default, raw previous", `{storageClass: default}`, `{}`, true, nil},
		{"oldSelf sees no default, raw previous", `{mode: B}`, `{}`, true, nil},
		{"oldSelf sees the previous value", `{mode: B}`, `{mode: A}`, true,
			[]string{"settings cel mode: mode A cannot be left"}},
		{"effective previous gets the defaults too", `{storageClass: fast}`, `{}`, false,
			[]string{"settings immutable storageClass"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := p.Evaluate(Request{Settings: yamlValue(t, tc.settings), Previous: yamlValue(t, tc.previous), HasPrevious: true, PreviousIsRaw: tc.raw})
			if got := kindSummary(res.Problems); fmt.Sprint(got) != fmt.Sprint(tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestImmutable_WalkFollowsEveryValueSchema: marks are found through
// patternProperties, tuple items, additionalItems and not, and entries
// of a map are compared over the keys of both sides (a removed entry
// holding a marked value is a change).
func TestImmutable_WalkFollowsEveryValueSchema(t *testing.T) {
	t.Parallel()
	tree := yamlTree(t, `
type: object
properties:
  zones:
    type: object
    patternProperties:
      "^z":
        type: object
        properties:
          id: {type: string, x-deckhouse-immutable: true}
  pair:
    type: array
    items:
      - {type: string, x-deckhouse-immutable: true}
      - {type: string}
    additionalItems: {type: string, x-deckhouse-immutable: true}
  negated:
    type: object
    not:
      properties:
        key: {x-deckhouse-immutable: true}
`)
	cases := []struct {
		name, prev, cur string
		want            []string
	}{
		{"pattern entry changed", `{zones: {z1: {id: a}}}`, `{zones: {z1: {id: b}}}`, []string{"zones.z1.id"}},
		{"pattern entry removed", `{zones: {z1: {id: a}}}`, `{zones: {}}`, []string{"zones.z1.id"}},
		{"pattern entry added", `{zones: {}}`, `{zones: {z2: {id: a}}}`, nil},
		{"tuple head changed", `{pair: [a, b]}`, `{pair: [c, b]}`, []string{"pair[0]"}},
		{"tuple tail free", `{pair: [a, b]}`, `{pair: [a, c]}`, nil},
		{"additional item changed", `{pair: [a, b, x]}`, `{pair: [a, b, y]}`, []string{"pair[2]"}},
		{"mark under not", `{negated: {key: a}}`, `{negated: {key: b}}`, []string{"negated.key"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ps []*Problem
			checkImmutable(tree, yamlTree(t, tc.prev), yamlTree(t, tc.cur), &ps)
			sortProblems(ps)
			var got []string
			for _, p := range ps {
				got = append(got, p.Path.String())
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestImmutable_UnsetGrantPathDroppedFromOldSide: a bound field the new
// settings leave absent or "" is not compared (the project default fills
// both sides alike), as DP's webhook does.
func TestImmutable_UnsetGrantPathDroppedFromOldSide(t *testing.T) {
	t.Parallel()
	tree := yamlTree(t, `
type: object
properties:
  storageClass: {type: string, x-deckhouse-grantable-resource: storageclasses, x-deckhouse-immutable: true}
`)
	for _, cur := range []string{`{}`, `{storageClass: ""}`} {
		var ps []*Problem
		checkImmutable(tree, yamlTree(t, `{storageClass: hdd}`), yamlTree(t, cur), &ps)
		if len(ps) != 0 {
			t.Fatalf("%s: %v", cur, problemSummary(ps))
		}
	}
	var ps []*Problem
	checkImmutable(tree, yamlTree(t, `{storageClass: hdd}`), yamlTree(t, `{storageClass: ssd}`), &ps)
	if len(ps) != 1 {
		t.Fatalf("a given value is compared: %v", problemSummary(ps))
	}
}
