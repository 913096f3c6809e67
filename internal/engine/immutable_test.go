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

// immutableProblems compares the effective settings of doc with prev.
func immutableProblems(t *testing.T, doc, prev string) []string {
	t.Helper()
	tree := yamlTree(t, immutableSchema)
	eff := effectiveWithDefaults(tree, yamlTree(t, doc))
	var ps []*Problem
	checkImmutable(tree, eff, true, yamlTree(t, prev), false, nil, 0, &ps)
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

func TestImmutable_ObjectFreezesSubtree(t *testing.T) {
	prev := `{storageClass: default, frozen: {a: x, b: {c: 1}, list: [p, q]}}`
	expectImmutable(t, `{frozen: {a: x, b: {c: 1}, list: [p, q]}}`, prev)
	expectImmutable(t, `{frozen: {a: y, b: {c: 2}, list: [p, r]}}`, prev, "frozen.a", "frozen.b.c", "frozen.list[1]")
}

func TestImmutable_NeverSetValueIsFree(t *testing.T) {
	expectImmutable(t, `{postgres: {storageClass: a}}`, `{storageClass: default}`)
	expectImmutable(t, `{postgres: {storageClass: a}}`, `{storageClass: default, postgres: {storageClass: null}}`)
	expectImmutable(t, `{frozen: {a: x, b: {c: 1}}}`, `{storageClass: default, frozen: {a: x}}`)
}

func TestImmutable_NewArrayElementIsFree(t *testing.T) {
	prev := `{storageClass: default, disks: [{name: a}]}`
	expectImmutable(t, `{disks: [{name: a}, {name: b}]}`, prev)
	expectImmutable(t, `{disks: [{name: z}, {name: b}]}`, prev, "disks[0].name")
	expectImmutable(t, `{frozen: {list: [p, q, r]}}`, `{storageClass: default, frozen: {list: [p, q]}}`)
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
	expectImmutable(t, `{frozen: {}}`, `{storageClass: default, frozen: {a: x}}`, "frozen.a")
	expectImmutable(t, `{disks: []}`, `{storageClass: default, disks: [{name: a}]}`, "disks[0].name")
}

func TestImmutable_NumbersCompareByValue(t *testing.T) {
	tree := yamlTree(t, `{properties: {n: {type: integer, x-deckhouse-immutable: true}}}`)
	var ps []*Problem
	checkImmutable(tree, map[string]any{"n": int64(3)}, true, map[string]any{"n": float64(3)}, false, nil, 0, &ps)
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

// TestImmutable_RawPreviousSettingsGetDefaultsFirst: with PreviousIsRaw the
// previous document is the old spec.settings (DP's fallback when
// lastAppliedConfiguration is empty) and gets the schema defaults before the
// comparison, so both sides are effective settings (dp-reference §5).
func TestImmutable_RawPreviousSettingsGetDefaultsFirst(t *testing.T) {
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
		{"oldSelf sees the default, raw previous", `{mode: B}`, `{}`, true,
			[]string{"settings cel mode: mode A cannot be left"}},
		{"effective previous is taken as is: an unset field is free", `{storageClass: fast}`, `{}`, false, nil},
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
