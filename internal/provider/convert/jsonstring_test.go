package convert

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

func TestToJSONString_OneDocumentOneEncodingWhateverItsSource(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"keys sorted, compact", map[string]any{"b": int64(1), "a": "x"}, `{"a":"x","b":1}`},
		{"integral float is an integer", map[string]any{"n": 5.0}, `{"n":5}`},
		{"json.Number integral", map[string]any{"n": json.Number("5.0")}, `{"n":5}`},
		{"json.Number fraction", map[string]any{"n": json.Number("1.50")}, `{"n":1.5}`},
		{"int kinds", []any{1, int32(2), int64(3), uint64(4)}, `[1,2,3,4]`},
		{"no HTML escaping", map[string]any{"host": "<a&b>"}, `{"host":"<a&b>"}`},
		{"string slices and maps", map[string]any{"l": []string{"x"}, "m": map[string]string{"k": "v"}}, `{"l":["x"],"m":{"k":"v"}}`},
		{"nested null kept", map[string]any{"a": map[string]any{"b": nil}}, `{"a":{"b":null}}`},
		{"empty object", map[string]any{}, `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ToJSONString(tc.in)
			if got.ValueString() != tc.want {
				t.Fatalf("ToJSONString = %s, want %s", got.ValueString(), tc.want)
			}
			// The same document through the dynamic conversion the
			// engine's values took before: the same encoding.
			viaDynamic, _, err := FromDynamic(ToDynamic(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if again := ToJSONString(viaDynamic); !again.Equal(got) {
				t.Fatalf("through ToDynamic: %s, want %s", again, got)
			}
			back, known, err := FromJSONString(got)
			if err != nil || !known {
				t.Fatalf("FromJSONString: known %v, err %v", known, err)
			}
			if !reflect.DeepEqual(back, viaDynamic) {
				t.Fatalf("FromJSONString = %#v, want %#v (as FromDynamic)", back, viaDynamic)
			}
		})
	}
}

func TestToJSONString_NullAndUnknown(t *testing.T) {
	t.Parallel()
	if got := ToJSONString(nil); !got.IsNull() {
		t.Fatalf("nil: %s, want null", got)
	}
	if got := ToJSONString(map[string]any{"a": engine.Unknown{}}); !got.IsUnknown() {
		t.Fatalf("unknown leaf: %s, want unknown", got)
	}
	if v, known, err := FromJSONString(types.StringNull()); v != nil || !known || err != nil {
		t.Fatalf("null: %v %v %v", v, known, err)
	}
	if _, known, _ := FromJSONString(types.StringUnknown()); known {
		t.Fatal("unknown string reported known")
	}
	if _, _, err := FromJSONString(types.StringValue(`{"a":1} {}`)); err == nil {
		t.Fatal("two documents decoded without an error")
	}
}
