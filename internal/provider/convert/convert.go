package convert

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// FromDynamic converts a Terraform dynamic value into the JSON data model
// (map[string]any, []any, string, bool, nil, int64 or float64). known is false
// when any part of the value is unknown; the known parts are still converted
// and unknown leaves become nil. A null dynamic converts to nil.
func FromDynamic(v types.Dynamic) (val any, known bool, err error) {
	c := converter{known: true}
	val, err = c.value(v)
	return val, c.known, err
}

// FromDynamicPartial converts a Terraform dynamic value into the JSON data
// model with every unknown part (a leaf or a whole subtree) as
// engine.Unknown{}, for a partial evaluation at plan. known is false when
// anything was unknown.
func FromDynamicPartial(v types.Dynamic) (val any, known bool, err error) {
	c := converter{known: true, unknown: engine.Unknown{}}
	val, err = c.value(v)
	return val, c.known, err
}

type converter struct {
	known   bool
	unknown any // what an unknown part becomes (nil by default)
}

func (c *converter) value(v attr.Value) (any, error) {
	if v == nil {
		return nil, nil
	}
	if v.IsUnknown() {
		c.known = false
		return c.unknown, nil
	}
	if v.IsNull() {
		return nil, nil
	}
	switch x := v.(type) {
	case basetypes.DynamicValue:
		if x.IsUnderlyingValueUnknown() {
			c.known = false
			return c.unknown, nil
		}
		if x.IsUnderlyingValueNull() {
			return nil, nil
		}
		return c.value(x.UnderlyingValue())
	case basetypes.StringValue:
		return x.ValueString(), nil
	case basetypes.BoolValue:
		return x.ValueBool(), nil
	case basetypes.NumberValue:
		return bigToJSON(x.ValueBigFloat()), nil
	case basetypes.Int64Value:
		return x.ValueInt64(), nil
	case basetypes.Int32Value:
		return int64(x.ValueInt32()), nil
	case basetypes.Float64Value:
		return floatToJSON(x.ValueFloat64()), nil
	case basetypes.Float32Value:
		return floatToJSON(float64(x.ValueFloat32())), nil
	case basetypes.ObjectValue:
		return c.object(x.Attributes())
	case basetypes.MapValue:
		return c.object(x.Elements())
	case basetypes.ListValue:
		return c.array(x.Elements())
	case basetypes.SetValue:
		if c.unknown != nil && !fullyKnown(x) {
			// An unknown element may turn out equal to another and
			// collapse: even the set's length is unknown.
			c.known = false
			return c.unknown, nil
		}
		return c.array(x.Elements())
	case basetypes.TupleValue:
		return c.array(x.Elements())
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

func (c *converter) object(attrs map[string]attr.Value) (any, error) {
	out := make(map[string]any, len(attrs))
	for k, a := range attrs {
		val, err := c.value(a)
		if err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}

func (c *converter) array(elems []attr.Value) (any, error) {
	out := make([]any, 0, len(elems))
	for _, e := range elems {
		val, err := c.value(e)
		if err != nil {
			return nil, err
		}
		out = append(out, val)
	}
	return out, nil
}

// bigToJSON returns an int64 for an integral number in range, else a float64.
func bigToJSON(f *big.Float) any {
	if f == nil {
		return nil
	}
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact {
			return i
		}
	}
	v, _ := f.Float64()
	return v
}

func floatToJSON(v float64) any {
	if v == math.Trunc(v) && v >= math.MinInt64 && v < math.MaxInt64 && !math.IsInf(v, 0) {
		return int64(v)
	}
	return v
}

// ToDynamic converts a JSON data model value into a Terraform dynamic value:
// objects as objects, arrays as tuples, numbers as numbers, null as a dynamic
// null. The result is deterministic.
func ToDynamic(v any) types.Dynamic {
	if v == nil {
		return types.DynamicNull()
	}
	return types.DynamicValue(toAttr(v))
}

// toAttr converts a JSON data model value into a framework value.
func toAttr(v any) attr.Value {
	switch x := v.(type) {
	case nil:
		return types.DynamicNull()
	case engine.Unknown:
		return types.DynamicUnknown()
	case string:
		return types.StringValue(x)
	case bool:
		return types.BoolValue(x)
	case int:
		return types.NumberValue(new(big.Float).SetInt64(int64(x)))
	case int32:
		return types.NumberValue(new(big.Float).SetInt64(int64(x)))
	case int64:
		return types.NumberValue(new(big.Float).SetInt64(x))
	case uint64:
		return types.NumberValue(new(big.Float).SetUint64(x))
	case float32:
		return types.NumberValue(big.NewFloat(float64(x)))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return types.StringValue(fmt.Sprint(x))
		}
		return types.NumberValue(big.NewFloat(x))
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 512, big.ToNearestEven)
		if err != nil {
			return types.StringValue(string(x))
		}
		return types.NumberValue(f)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		attrTypes := make(map[string]attr.Type, len(x))
		attrs := make(map[string]attr.Value, len(x))
		for _, k := range keys {
			a := toAttr(x[k])
			attrs[k] = a
			attrTypes[k] = attrTypeOf(a)
		}
		return types.ObjectValueMust(attrTypes, attrs)
	case []any:
		elemTypes := make([]attr.Type, len(x))
		elems := make([]attr.Value, len(x))
		for i, e := range x {
			a := toAttr(e)
			elems[i] = a
			elemTypes[i] = attrTypeOf(a)
		}
		return types.TupleValueMust(elemTypes, elems)
	case []string:
		arr := make([]any, len(x))
		for i, s := range x {
			arr[i] = s
		}
		return toAttr(arr)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return toAttr(m)
	}
	return types.StringValue(fmt.Sprint(v))
}

func attrTypeOf(a attr.Value) attr.Type {
	if d, ok := a.(basetypes.DynamicValue); ok && (d.IsNull() || d.IsUnknown()) {
		return types.DynamicType
	}
	return a.Type(context.Background())
}

// fullyKnown reports whether v holds no unknown part.
func fullyKnown(v attr.Value) bool {
	tv, err := v.ToTerraformValue(context.Background())
	return err == nil && tv.IsFullyKnown()
}
