package protocol

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// anyString is a plan modifier the shortcuts know nothing of.
type anyString struct{}

func (anyString) Description(context.Context) string         { return "any" }
func (anyString) MarkdownDescription(context.Context) string { return "any" }
func (anyString) PlanModifyString(context.Context, planmodifier.StringRequest, *planmodifier.StringResponse) {
}

// The plan shortcuts run on a schema only when they reproduce every default
// and plan modifier in it: top-level string and bool defaults, and plan
// modifiers that act only on unknown or changed values with a prior state.
func TestSchemaInfo_RefusesDefaultsAndPlanModifiersItCannotRun(t *testing.T) {
	known := []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}
	nested := func(a schema.Attribute) schema.Schema {
		return schema.Schema{Attributes: map[string]schema.Attribute{
			"o": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{"s": a}}}}
	}
	tests := []struct {
		name    string
		schema  schema.Schema
		wantErr error
	}{
		{name: "top-level string default and known modifiers", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"s": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("x"), PlanModifiers: known}}}},
		{name: "int64 default", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"n": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1)}}}, wantErr: errUnsupportedDefault},
		{name: "unknown plan modifier", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"s": schema.StringAttribute{Optional: true, PlanModifiers: []planmodifier.String{anyString{}}}}}, wantErr: errUnsupportedPlan},
		{name: "nested plan modifier", schema: nested(schema.StringAttribute{Optional: true, PlanModifiers: known[:1]}), wantErr: errUnsupportedPlan},
		{name: "nested default", schema: nested(schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("x")}), wantErr: errUnsupportedPlan},
		{name: "block attribute plan modifier", schema: schema.Schema{Blocks: map[string]schema.Block{
			"b": schema.SingleNestedBlock{Attributes: map[string]schema.Attribute{
				"s": schema.StringAttribute{Optional: true, PlanModifiers: known[:1]}}}}}, wantErr: errUnsupportedPlan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schemaInfoFromSchema(context.Background(), tt.schema).err
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
