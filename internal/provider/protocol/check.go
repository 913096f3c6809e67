package protocol

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// Check reports why the shortcuts would leave resource type r to the
// framework (nil when they answer for it), for a resource's test to assert.
func Check(r resource.Resource) error {
	info := schemaInfoOf(context.Background(), r)
	return errors.Join(info.err, info.validateErr)
}

// planModifierTypes are the plan modifiers the plan shortcuts may ignore:
// each acts only on a value unknown or changed against a prior state.
var planModifierTypes = map[reflect.Type]bool{
	reflect.TypeOf(stringplanmodifier.UseStateForUnknown()): true,
	reflect.TypeOf(stringplanmodifier.RequiresReplace()):    true,
	reflect.TypeOf(boolplanmodifier.UseStateForUnknown()):   true,
	reflect.TypeOf(boolplanmodifier.RequiresReplace()):      true,
	reflect.TypeOf(int64planmodifier.UseStateForUnknown()):  true,
	reflect.TypeOf(int64planmodifier.RequiresReplace()):     true,
}

// checkPlan reports a plan modifier other than those of planModifierTypes,
// and any plan modifier or default below the top level.
func checkPlan(s schema.Schema) error {
	for name, a := range s.Attributes {
		for _, m := range sliceField(a, "PlanModifiers") {
			if !planModifierTypes[reflect.TypeOf(m)] {
				return fmt.Errorf("%w: plan modifier %T of %s", errUnsupportedPlan, m, name)
			}
		}
		if err := checkNested(name, a); err != nil {
			return err
		}
	}
	for name, b := range s.Blocks {
		sb, ok := b.(schema.SingleNestedBlock)
		if !ok || len(sb.PlanModifiers) > 0 {
			return fmt.Errorf("%w: block %s is not a single nested block without plan modifiers", errUnsupportedPlan, name)
		}
		for n, a := range sb.Attributes {
			if hasDefault(a) || len(sliceField(a, "PlanModifiers")) > 0 {
				return fmt.Errorf("%w: default or plan modifier of %s.%s", errUnsupportedPlan, name, n)
			}
		}
	}
	return nil
}

// checkNested reports a default or plan modifier of an attribute nested in a.
func checkNested(prefix string, a any) error {
	n, ok := a.(schema.NestedAttribute)
	if !ok {
		return nil
	}
	for name, c := range n.GetNestedObject().GetAttributes() {
		if hasDefault(c) || len(sliceField(c, "PlanModifiers")) > 0 {
			return fmt.Errorf("%w: default or plan modifier of %s.%s", errUnsupportedPlan, prefix, name)
		}
		if err := checkNested(prefix+"."+name, c); err != nil {
			return err
		}
	}
	return nil
}

// sliceField returns the elements of a schema struct's slice field.
func sliceField(a any, name string) []any {
	v := reflect.ValueOf(a)
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName(name)
	if f.Kind() != reflect.Slice {
		return nil
	}
	out := make([]any, f.Len())
	for i := range f.Len() {
		out[i] = f.Index(i).Interface()
	}
	return out
}

var errUnsupportedPlan = errors.New("schema feature the plan shortcuts do not run")
