package engine

import (
	"reflect"
	"testing"
)

const switchSchema = `
type: object
properties:
  storage:
    type: object
    default: {}
    properties:
      mode: {type: string, enum: [Internal, External], default: Internal}
      size: {type: string}
      url: {type: string}
    oneOf:
    - properties:
        mode: {enum: [Internal]}
      x-deckhouse-enum-switch-settings:
      - to: [External]
        impact: destructive
        messages:
          en: "Switching to external storage **deletes the data** stored in the cluster."
          ru: "Переключение удалит данные."
    - properties:
        mode: {enum: [External]}
      required: [url]
      x-deckhouse-enum-switch-settings:
      - to: [Internal]
  tls:
    type: object
    properties:
      enabled: {type: boolean}
    oneOf:
    - properties: {enabled: {enum: [true]}}
      x-deckhouse-enum-switch-settings:
      - {to: ["false"], impact: warning, messages: {en: "Disabling TLS"}}
    - properties: {enabled: {enum: [false]}}
`

func switchesOf(t *testing.T, doc, prev string) []Switch {
	t.Helper()
	tree := yamlTree(t, switchSchema)
	eff := effectiveWithDefaults(tree, yamlTree(t, doc))
	var out []Switch
	detectSwitches(tree, eff, yamlTree(t, prev), nil, 0, &out)
	return out
}

func TestSwitch_DetectedFromBranchValueToTargetValue(t *testing.T) {
	got := switchesOf(t, `{storage: {mode: External, url: "https://s"}}`, `{storage: {mode: Internal}}`)
	want := []Switch{{
		Path: Path{}.Key("storage").Key("mode"), From: "Internal", To: "External", Impact: ImpactDestructive,
		Messages: map[string]string{"en": "Switching to external storage **deletes the data** stored in the cluster.", "ru": "Переключение удалит данные."},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

func TestSwitch_ImpactDefaultsToInfo(t *testing.T) {
	got := switchesOf(t, `{}`, `{storage: {mode: External, url: u}}`)
	if len(got) != 1 || got[0].Impact != ImpactInfo || got[0].From != "External" || got[0].To != "Internal" {
		t.Fatalf("got %+v", got)
	}
}

func TestSwitch_BooleanDiscriminatorComparedAsString(t *testing.T) {
	got := switchesOf(t, `{tls: {enabled: false}}`, `{tls: {enabled: true}}`)
	if len(got) != 1 || got[0].From != "true" || got[0].To != "false" || got[0].Impact != ImpactWarning || got[0].Path.String() != "tls.enabled" {
		t.Fatalf("got %+v", got)
	}
}

func TestSwitch_NoSwitchWithoutChangeOrWithoutOldValue(t *testing.T) {
	if got := switchesOf(t, `{storage: {mode: Internal}}`, `{storage: {mode: Internal}}`); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
	if got := switchesOf(t, `{storage: {mode: External, url: u}}`, `{}`); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
	if got := switchesOf(t, `{tls: {enabled: true}}`, `{tls: {enabled: false}}`); len(got) != 0 {
		t.Fatalf("a branch without settings must not fire: %+v", got)
	}
}

func TestSwitch_DestructiveProblemCarriesEnglishMessageButNoValues(t *testing.T) {
	sw := switchesOf(t, `{storage: {mode: External, url: u}}`, `{storage: {mode: Internal}}`)[0]
	p := switchProblem(sw)
	want := `switching field "storage.mode" to another mode is destructive and must be acknowledged: Switching to external storage **deletes the data** stored in the cluster.`
	if p.Kind != KindSwitch || p.Message != want || p.Path.String() != "storage.mode" {
		t.Fatalf("got %+v", p)
	}
}

func TestSwitch_NumericDiscriminatorComparedAsString(t *testing.T) {
	tree := yamlTree(t, `
type: object
properties:
  version: {type: integer, enum: [1, 2]}
oneOf:
- properties: {version: {enum: [1]}}
  x-deckhouse-enum-switch-settings: [{to: ["2"], impact: warning}]
- properties: {version: {enum: [2]}}
`)
	var out []Switch
	detectSwitches(tree, map[string]any{"version": int64(2)}, map[string]any{"version": float64(1)}, nil, 0, &out)
	if len(out) != 1 || out[0].From != "1" || out[0].To != "2" || out[0].Path.String() != "version" {
		t.Fatalf("got %+v", out)
	}
}
