package jsonvalue

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestNormalize_NumbersAsTheAPIMachineryReadsThem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   any
		want any
	}{
		{"integer literal is int64", json.Number("5"), int64(5)},
		{"integer literal keeps every digit", json.Number("9007199254740993"), int64(9007199254740993)},
		{"fraction literal is float64", json.Number("1.50"), 1.5},
		{"integral fraction literal is float64", json.Number("5.0"), 5.0},
		{"exponent literal is float64", json.Number("1e3"), 1000.0},
		{"integer beyond int64 is float64", json.Number("9223372036854775808"), 9223372036854775808.0},
		{"Go integers are int64", []any{1, int8(2), int32(3), uint8(4), uint64(5)}, []any{int64(1), int64(2), int64(3), int64(4), int64(5)}},
		{"uint64 beyond int64 is float64", uint64(math.MaxUint64), float64(math.MaxUint64)},
		{"float32 is float64", float32(1.5), 1.5},
		{"negative zero is zero", math.Copysign(0, -1), 0.0},
		{"string forms become generic", map[string]any{"l": []string{"a"}, "m": map[string]string{"k": "v"}}, map[string]any{"l": []any{"a"}, "m": map[string]any{"k": "v"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, partial, err := Normalize(tc.in)
			if err != nil || partial {
				t.Fatalf("Normalize: partial %v, err %v", partial, err)
			}
			if !reflect.DeepEqual(got, tc.want) || math.Signbit(asFloat(got)) {
				t.Fatalf("Normalize = %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestNormalize_RefusesWhatIsNotADocument(t *testing.T) {
	t.Parallel()
	deep := any("leaf")
	for range MaxDepth + 1 {
		deep = []any{deep}
	}
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"a channel", map[string]any{"c": make(chan int)}, "chan int"},
		{"a json.Number that is no number", json.Number("x"), "json.Number (not a number)"},
		{"deeper than the limit", deep, "nested deeper"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := Normalize(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
	if _, _, err := Normalize(deep); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("too deep: %v is not ErrTooDeep", err)
	}
}

func TestNormalize_ReportsUnknownAndCopies(t *testing.T) {
	t.Parallel()
	in := map[string]any{"a": []any{Unknown{}}}
	out, partial, err := Normalize(in)
	if err != nil || !partial {
		t.Fatalf("partial %v, err %v", partial, err)
	}
	out.(map[string]any)["a"].([]any)[0] = "changed"
	if in["a"].([]any)[0] != (Unknown{}) {
		t.Fatal("Normalize aliased its input")
	}
}

func TestTypeName_NamesTheJSONSchemaType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   any
		want string
	}{
		{nil, "null"}, {map[string]any{}, "object"}, {[]any{}, "array"}, {"s", "string"}, {true, "boolean"},
		{int64(1), "number"}, {1.5, "number"}, {json.Number("1"), "number"}, {3, "number"}, {uint8(3), "number"},
		{Unknown{}, "unknown"}, {struct{}{}, "struct {}"},
	}
	for _, tc := range cases {
		if got := TypeName(tc.in); got != tc.want {
			t.Errorf("TypeName(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEqual_NumbersByValueCollectionsDeep(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		a, b      any
		want      bool
		wantKnown bool // EqualKnown's answer
	}{
		{"int64 and float64 of one value", int64(1), 1.0, true, true},
		{"Go int and json.Number", 2, json.Number("2.0"), true, true},
		{"different numbers", int64(1), 2.0, false, false},
		{"large integers exactly", int64(9007199254740993), int64(9007199254740992), false, false},
		{"number and string", int64(1), "1", false, false},
		{"objects key by key", map[string]any{"a": 1, "b": []any{"x"}}, map[string]any{"b": []any{"x"}, "a": 1.0}, true, true},
		{"object with a missing key", map[string]any{"a": nil}, map[string]any{}, false, false},
		{"arrays in order", []any{1, 2}, []any{2, 1}, false, false},
		{"null and null", nil, nil, true, true},
		{"unknown on one side", map[string]any{"a": Unknown{}}, map[string]any{"a": 1}, false, true},
		{"unknown on both sides", Unknown{}, Unknown{}, true, true},
		{"values outside the model", []string{"a"}, []string{"a"}, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Equal(tc.a, tc.b); got != tc.want {
				t.Errorf("Equal = %v, want %v", got, tc.want)
			}
			if got := Equal(tc.b, tc.a); got != tc.want {
				t.Errorf("Equal reversed = %v, want %v", got, tc.want)
			}
			if got := EqualKnown(tc.a, tc.b); got != tc.wantKnown {
				t.Errorf("EqualKnown = %v, want %v", got, tc.wantKnown)
			}
		})
	}
}

func TestCanonical_OneDocumentOneEncoding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"keys sorted, compact", map[string]any{"b": int64(1), "a": "x"}, `{"a":"x","b":1}`},
		{"integral float has integer digits", map[string]any{"n": 5.0}, `{"n":5}`},
		{"json.Number integral fraction", map[string]any{"n": json.Number("5.0")}, `{"n":5}`},
		{"json.Number fraction", map[string]any{"n": json.Number("1.50")}, `{"n":1.5}`},
		{"negative zero", math.Copysign(0, -1), `0`},
		{"large float", 1e21, `1e+21`},
		{"int kinds", []any{1, int32(2), int64(3), uint64(4)}, `[1,2,3,4]`},
		{"no HTML escaping", map[string]any{"host": "<a&b>"}, `{"host":"<a&b>"}`},
		{"nested null kept", map[string]any{"a": map[string]any{"b": nil}}, `{"a":{"b":null}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Canonical(tc.in)
			if err != nil || string(got) != tc.want {
				t.Fatalf("Canonical = %s, %v; want %s", got, err, tc.want)
			}
			// The encoding is a fixed point: decoding and encoding again
			// gives the same bytes.
			back, err := Decode(got)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := Canonical(back); string(again) != tc.want {
				t.Fatalf("again = %s, want %s", again, tc.want)
			}
			if !Equal(back, tc.in) {
				t.Fatalf("Decode = %#v, not equal to %#v", back, tc.in)
			}
		})
	}
}

func TestCanonical_RefusesUnknownAndWhatJSONCannotSpell(t *testing.T) {
	t.Parallel()
	if _, err := Canonical(map[string]any{"a": Unknown{}}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown: %v", err)
	}
	for _, v := range []any{math.Inf(1), math.NaN(), make(chan int)} {
		if _, err := Canonical(v); err == nil {
			t.Errorf("Canonical(%v) encoded", v)
		}
	}
}

func TestDecode_ExactlyOneDocument(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`{"a":1} {}`, `{"a":`, ``} {
		if _, err := Decode([]byte(raw)); err == nil {
			t.Errorf("Decode(%q) succeeded", raw)
		}
	}
}
