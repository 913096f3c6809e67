package convert

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var objectTestType = types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType, "count": types.Int64Type}}

type objectGood struct {
	Name  types.String `tfsdk:"name"`
	Count types.Int64  `tfsdk:"count"`
}

type objectMissing struct {
	Name types.String `tfsdk:"name"`
}

type objectWrongType struct {
	Name  types.Bool  `tfsdk:"name"`
	Count types.Int64 `tfsdk:"count"`
}

type objectUnknownName struct {
	Name  types.String `tfsdk:"name"`
	Count types.Int64  `tfsdk:"count"`
	Other types.String `tfsdk:"other"`
}

type objectUntagged struct {
	Name  types.String `tfsdk:"name"`
	Count types.Int64  `tfsdk:"count"`
	Note  string
}

// A struct that does not match the object exactly is refused when the
// converter is made, never at a conversion; a matching one round-trips.
func TestNewObject_RefusesAStructThatDoesNotMatchTheObject(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		make func() error
		want string
	}{
		"attribute without a field": {func() error { _, err := NewObject[objectMissing](ctx, objectTestType); return err }, "no field for the attributes [count]"},
		"field of another type":     {func() error { _, err := NewObject[objectWrongType](ctx, objectTestType); return err }, "attribute \"name\" holds"},
		"field of no attribute":     {func() error { _, err := NewObject[objectUnknownName](ctx, objectTestType); return err }, "no attribute \"other\""},
		"field without a tag":       {func() error { _, err := NewObject[objectUntagged](ctx, objectTestType); return err }, "no tfsdk tag"},
		"not an object type":        {func() error { _, err := NewObject[objectGood](ctx, types.StringType); return err }, "not an object type"},
	} {
		t.Run(name, func(t *testing.T) {
			if err := tc.make(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}

	o, err := NewObject[objectGood](ctx, objectTestType)
	if err != nil {
		t.Fatal(err)
	}
	in := objectGood{Name: types.StringValue("a"), Count: types.Int64Unknown()}
	v, err := o.Encode(ctx, &in)
	if err != nil {
		t.Fatal(err)
	}
	var out objectGood
	if err := o.Decode(ctx, v, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Name.Equal(in.Name) || !out.Count.Equal(in.Count) {
		t.Fatalf("round trip gives %+v, want %+v", out, in)
	}
}

// EncodeOver replaces, and DecodeOnly reads, only the named attributes.
func TestObjectEncodeOver_ReplacesOnlyTheNamedAttributes(t *testing.T) {
	ctx := context.Background()
	o, err := NewObject[objectGood](ctx, objectTestType)
	if err != nil {
		t.Fatal(err)
	}
	base, err := o.Encode(ctx, &objectGood{Name: types.StringValue("a"), Count: types.Int64Value(1)})
	if err != nil {
		t.Fatal(err)
	}
	changed := objectGood{Name: types.StringValue("b"), Count: types.Int64Value(2)}
	got, err := o.EncodeOver(ctx, base, &changed, "count")
	if err != nil {
		t.Fatal(err)
	}
	var out objectGood
	if err := o.Decode(ctx, got, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name.ValueString() != "a" || out.Count.ValueInt64() != 2 {
		t.Fatalf("got %+v, want name a (the base's) and count 2", out)
	}
	if _, err := o.EncodeOver(ctx, base, &changed, "other"); err == nil {
		t.Fatal("an attribute the object does not have was accepted")
	}
	only := objectGood{Name: types.StringValue("untouched")}
	if err := o.DecodeOnly(ctx, got, &only, "count"); err != nil || only.Name.ValueString() != "untouched" || only.Count.ValueInt64() != 2 {
		t.Fatalf("DecodeOnly(count) gives %+v, %v", only, err)
	}
}
