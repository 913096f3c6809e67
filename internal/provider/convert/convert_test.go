package convert

import (
	"context"
	"math/big"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

func TestUnitConvert_RoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   any
	}{
		{"empty object", map[string]any{}},
		{"scalars", map[string]any{"s": "x", "b": true, "i": int64(3), "f": 1.5, "n": nil}},
		{"nested", map[string]any{"a": map[string]any{"b": []any{int64(1), "two", map[string]any{"c": false}}}}},
		{"mixed array", []any{int64(1), "a", nil, []any{}}},
		{"negative and large", map[string]any{"neg": int64(-7), "big": int64(1) << 60, "frac": -0.25}},
		{"string", "plain"},
		{"null", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := ToDynamic(tc.in)
			got, known, err := FromDynamic(d)
			if err != nil {
				t.Fatal(err)
			}
			if !known {
				t.Fatal("known = false")
			}
			if !reflect.DeepEqual(got, tc.in) {
				t.Fatalf("round trip: got %#v, want %#v", got, tc.in)
			}
		})
	}
}

func TestUnitConvert_Deterministic(t *testing.T) {
	t.Parallel()
	in := map[string]any{"b": int64(1), "a": []any{"x", map[string]any{"z": nil, "y": true}}}
	a, b := ToDynamic(in), ToDynamic(in)
	if !a.Equal(b) {
		t.Fatalf("ToDynamic is not deterministic: %s vs %s", a, b)
	}
}

func TestUnitConvert_NumbersIntegralBecomeInt64(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   *big.Float
		want any
	}{
		{"integral", big.NewFloat(42), int64(42)},
		{"fraction", big.NewFloat(0.5), 0.5},
		{"out of int64 range", new(big.Float).SetFloat64(1e30), 1e30},
	}
	for _, tc := range cases {
		got, _, err := FromDynamic(types.DynamicValue(types.NumberValue(tc.in)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v (%T), want %#v", tc.name, got, got, tc.want)
		}
	}
}

func TestUnitConvert_CollectionsAndTypedValues(t *testing.T) {
	t.Parallel()
	list := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a"), types.StringValue("b")})
	set := types.SetValueMust(types.Int64Type, []attr.Value{types.Int64Value(1)})
	mp := types.MapValueMust(types.BoolType, map[string]attr.Value{"k": types.BoolValue(true)})
	obj := types.ObjectValueMust(
		map[string]attr.Type{"l": list.Type(context.Background()), "s": set.Type(context.Background()), "m": mp.Type(context.Background()), "f": types.Float64Type, "d": types.DynamicType, "n": types.StringType},
		map[string]attr.Value{"l": list, "s": set, "m": mp, "f": types.Float64Value(2.5), "d": types.DynamicValue(types.StringValue("in")), "n": types.StringNull()},
	)
	got, known, err := FromDynamic(types.DynamicValue(obj))
	if err != nil || !known {
		t.Fatalf("err=%v known=%v", err, known)
	}
	want := map[string]any{
		"l": []any{"a", "b"}, "s": []any{int64(1)}, "m": map[string]any{"k": true},
		"f": 2.5, "d": "in", "n": nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

func TestUnitConvert_UnknownPartsReported(t *testing.T) {
	t.Parallel()
	obj := types.ObjectValueMust(
		map[string]attr.Type{"a": types.StringType, "b": types.StringType},
		map[string]attr.Value{"a": types.StringValue("x"), "b": types.StringUnknown()},
	)
	got, known, err := FromDynamic(types.DynamicValue(obj))
	if err != nil {
		t.Fatal(err)
	}
	if known {
		t.Fatal("known = true for a value with an unknown part")
	}
	if !reflect.DeepEqual(got, map[string]any{"a": "x", "b": nil}) {
		t.Fatalf("known parts not converted: %#v", got)
	}
	if _, known, _ := FromDynamic(types.DynamicUnknown()); known {
		t.Fatal("an unknown dynamic is reported known")
	}
	if v, known, _ := FromDynamic(types.DynamicNull()); v != nil || !known {
		t.Fatalf("null dynamic: got %#v known=%v", v, known)
	}
}

// An effective settings document with unknown leaves converts to a dynamic
// value whose unknown parts stay unknown, and encodes for the protocol.
func TestToDynamic_UnknownLeavesStayUnknown(t *testing.T) {
	ctx := context.Background()
	d := ToDynamic(map[string]any{"host": engine.Unknown{}, "replicas": int64(2), "auth": map[string]any{"password": engine.Unknown{}}})
	v, err := d.ToTerraformValue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsFullyKnown() || !v.IsKnown() {
		t.Fatalf("want a known object with unknown parts, got %v", v)
	}
	if _, err := tfprotov6.NewDynamicValue(tftypes.DynamicPseudoType, v); err != nil {
		t.Fatalf("encoding: %v", err)
	}
	back, known, err := FromDynamicPartial(d)
	if err != nil || known {
		t.Fatalf("FromDynamicPartial: known=%v err=%v", known, err)
	}
	if m := back.(map[string]any); m["replicas"] != int64(2) || m["host"] != (engine.Unknown{}) {
		t.Fatalf("round trip: %v", back)
	}
}

// A set whose elements are not all known has an unknown length (an unknown
// element may turn out equal to another): at plan it is unknown as a whole,
// so checks on its length are skipped, not run on a guess.
func TestUnitConvert_SetWithUnknownElementsIsUnknown(t *testing.T) {
	t.Parallel()
	set := types.SetValueMust(types.StringType, []attr.Value{types.StringValue("a"), types.StringValue("b"), types.StringUnknown()})
	obj := types.ObjectValueMust(map[string]attr.Type{"zones": set.Type(context.Background())}, map[string]attr.Value{"zones": set})
	got, known, err := FromDynamicPartial(types.DynamicValue(obj))
	if err != nil || known {
		t.Fatalf("err=%v known=%v", err, known)
	}
	if want := map[string]any{"zones": engine.Unknown{}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	list := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a"), types.StringUnknown()})
	got, _, _ = FromDynamicPartial(types.DynamicValue(list))
	if want := []any{"a", engine.Unknown{}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a list keeps its length: got %#v", got)
	}
}
