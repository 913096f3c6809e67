package convert

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Object converts between a struct whose fields are framework values
// (types.String, types.Dynamic, timeouts.Value, ...) tagged `tfsdk:"name"`
// and the Terraform object of a schema with exactly those attributes. It
// gives what tfsdk.Plan.Get and tfsdk.State.Set give for such a struct: each
// field is its attribute type's ValueFromTerraform, and back its
// ToTerraformValue. The framework finds the struct's fields by reflection on
// every call (compiling a regular expression per field name); Object finds
// them once.
type Object[T any] struct {
	typ    tftypes.Object
	fields []objectField
}

type objectField struct {
	name  string
	index int
	typ   attr.Type
}

// NewObject returns the converter of T for the schema object type typ (a
// schema's Type()). Every field of T must be an attr.Value tagged with the
// name of one of typ's attributes, and every attribute must have a field.
func NewObject[T any](ctx context.Context, typ attr.Type) (*Object[T], error) {
	objType, ok := typ.(basetypes.ObjectType)
	if !ok {
		return nil, fmt.Errorf("%T is not an object type", typ)
	}
	tfType, ok := objType.TerraformType(ctx).(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no Terraform object type", typ)
	}
	st := reflect.TypeFor[T]()
	if st.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", st)
	}
	valueIface := reflect.TypeFor[attr.Value]()
	o := &Object[T]{typ: tfType}
	seen := map[string]bool{}
	for i := range st.NumField() {
		f := st.Field(i)
		name := f.Tag.Get("tfsdk")
		at, ok := objType.AttrTypes[name]
		switch {
		case name == "" || name == "-":
			return nil, fmt.Errorf("field %s has no tfsdk tag", f.Name)
		case !ok:
			return nil, fmt.Errorf("field %s: the object has no attribute %q", f.Name, name)
		case seen[name]:
			return nil, fmt.Errorf("field %s: attribute %q has two fields", f.Name, name)
		case !f.Type.Implements(valueIface):
			return nil, fmt.Errorf("field %s is not an attr.Value", f.Name)
		case f.Type != reflect.TypeOf(at.ValueType(ctx)):
			return nil, fmt.Errorf("field %s is a %s, attribute %q holds %T", f.Name, f.Type, name, at.ValueType(ctx))
		}
		seen[name] = true
		o.fields = append(o.fields, objectField{name: name, index: i, typ: at})
	}
	if len(seen) != len(objType.AttrTypes) {
		var missing []string
		for name := range objType.AttrTypes {
			if !seen[name] {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		return nil, fmt.Errorf("%s has no field for the attributes %v", st, missing)
	}
	return o, nil
}

// Decode sets the fields of out from v, a known, non-null object of the
// schema's type.
func (o *Object[T]) Decode(ctx context.Context, v tftypes.Value, out *T) error {
	return o.decode(ctx, v, out, o.fields)
}

// DecodeOnly sets only the fields of the named attributes of out from v: for
// a caller that reads a few attributes of a large object.
func (o *Object[T]) DecodeOnly(ctx context.Context, v tftypes.Value, out *T, names ...string) error {
	fields := make([]objectField, 0, len(names))
	for _, name := range names {
		f, ok := o.field(name)
		if !ok {
			return fmt.Errorf("no attribute %q", name)
		}
		fields = append(fields, f)
	}
	return o.decode(ctx, v, out, fields)
}

func (o *Object[T]) decode(ctx context.Context, v tftypes.Value, out *T, fields []objectField) error {
	if !v.IsKnown() || v.IsNull() {
		return fmt.Errorf("cannot decode an unknown or null object")
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return err
	}
	dst := reflect.ValueOf(out).Elem()
	for _, f := range fields {
		a, ok := attrs[f.name]
		if !ok {
			return fmt.Errorf("attribute %q is missing", f.name)
		}
		val, err := f.typ.ValueFromTerraform(ctx, a)
		if err != nil {
			return fmt.Errorf("attribute %q: %w", f.name, err)
		}
		field := dst.Field(f.index)
		rv := reflect.ValueOf(val)
		if rv.Type() != field.Type() {
			return fmt.Errorf("attribute %q holds %T, the field is a %s", f.name, val, field.Type())
		}
		field.Set(rv)
	}
	return nil
}

// Encode returns the Terraform object of in's fields.
func (o *Object[T]) Encode(ctx context.Context, in *T) (tftypes.Value, error) {
	src := reflect.ValueOf(in).Elem()
	attrs := make(map[string]tftypes.Value, len(o.fields))
	for _, f := range o.fields {
		tv, err := o.encodeField(ctx, src, f)
		if err != nil {
			return tftypes.Value{}, err
		}
		attrs[f.name] = tv
	}
	return newObject(o.typ, attrs)
}

// encodeField is the Terraform value of field f of src.
func (o *Object[T]) encodeField(ctx context.Context, src reflect.Value, f objectField) (tftypes.Value, error) {
	val, _ := src.Field(f.index).Interface().(attr.Value)
	tv, err := val.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.Value{}, fmt.Errorf("attribute %q: %w", f.name, err)
	}
	if want := o.typ.AttributeTypes[f.name]; !tv.Type().Equal(want) && !want.Is(tftypes.DynamicPseudoType) {
		return tftypes.Value{}, fmt.Errorf("attribute %q is a %s, the schema says %s", f.name, tv.Type(), want)
	}
	return tv, nil
}

// EncodeOver returns the Terraform object of base with the attributes names
// replaced by in's fields: for a struct decoded from base of which only
// those fields may have changed, without encoding the others again.
func (o *Object[T]) EncodeOver(ctx context.Context, base tftypes.Value, in *T, names ...string) (tftypes.Value, error) {
	var attrs map[string]tftypes.Value
	if !base.IsKnown() || base.IsNull() || !base.Type().Equal(o.typ) {
		return tftypes.Value{}, fmt.Errorf("the base is not a known object of the type")
	}
	if err := base.As(&attrs); err != nil {
		return tftypes.Value{}, err
	}
	src := reflect.ValueOf(in).Elem()
	for _, name := range names {
		f, ok := o.field(name)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("no attribute %q", name)
		}
		tv, err := o.encodeField(ctx, src, f)
		if err != nil {
			return tftypes.Value{}, err
		}
		attrs[name] = tv
	}
	return newObject(o.typ, attrs)
}

func (o *Object[T]) field(name string) (objectField, bool) {
	for _, f := range o.fields {
		if f.name == name {
			return f, true
		}
	}
	return objectField{}, false
}

// newObject is tftypes.NewValue of an object, with the panic of a value
// that does not fit (which the checks above rule out) as an error: NewValue
// validates the whole value, and ValidateValue before it would do it twice.
func newObject(typ tftypes.Object, attrs map[string]tftypes.Value) (v tftypes.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return tftypes.NewValue(typ, attrs), nil
}
