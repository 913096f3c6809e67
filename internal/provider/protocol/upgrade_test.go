package protocol

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A stored state fits the schema's type when every attribute it holds, at
// every level, is one the type has, with a value of the kind it says;
// dynamic values are not looked into, and missing attributes are allowed.
func TestJSONFits_OnlyAttributesAndKindsTheTypeHas(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"s": tftypes.String, "b": tftypes.Bool, "n": tftypes.Number, "d": tftypes.DynamicPseudoType,
		"m": tftypes.Map{ElementType: tftypes.String},
		"l": tftypes.List{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.String}}},
		"t": tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, tftypes.Number}},
	}}
	tests := []struct {
		json string
		want bool
	}{
		{`{"s":"a","b":true,"n":1.5,"d":{"value":{"any":[1]},"type":["object",{"any":["list","number"]}]},"m":{"k":"v"},"l":[{"x":"y"}],"t":["a",2]}`, true},
		{`{"s":null,"m":null,"l":null}`, true},
		{`{}`, true},
		{`{"gone":"x"}`, false},
		{`{"l":[{"x":"y","gone":1}]}`, false},
		{`{"s":1}`, false},
		{`{"b":"true"}`, false},
		{`{"m":{"k":1}}`, false},
		{`{"t":["a",2,3]}`, false},
		{`{"s":"a"} {}`, false},
		{`{"s":"a"`, false},
		{`[]`, false},
	}
	for _, tt := range tests {
		if got := jsonFits([]byte(tt.json), typ); got != tt.want {
			t.Errorf("jsonFits(%s) = %v, want %v", tt.json, got, tt.want)
		}
	}
}
