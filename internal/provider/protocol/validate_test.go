package protocol

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

type anyInt64 struct{}

func (anyInt64) Description(context.Context) string { return "any" }

func (anyInt64) MarkdownDescription(context.Context) string { return "any" }

func (anyInt64) ValidateInt64(context.Context, validator.Int64Request, *validator.Int64Response) {
}

func TestValidateShortcut_RefusesSchemasItCannotCheck(t *testing.T) {
	str := schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	tests := []struct {
		name   string
		schema schema.Schema
		ok     bool
	}{
		{name: "top-level string validators", schema: schema.Schema{Attributes: map[string]schema.Attribute{"s": str}}, ok: true},
		{name: "string validators in a single nested block", schema: schema.Schema{Blocks: map[string]schema.Block{
			"b": schema.SingleNestedBlock{Attributes: map[string]schema.Attribute{"s": str}}}}, ok: true},
		{name: "nested attributes of a computed attribute", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"o": schema.SingleNestedAttribute{Computed: true, Attributes: map[string]schema.Attribute{"s": schema.StringAttribute{Computed: true}}}}}, ok: true},
		{name: "int64 validators", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"n": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{anyInt64{}}}}}},
		{name: "a nested attribute a configuration sets (left to the framework when set)", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"o": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{"s": str}}}}, ok: true},
		{name: "validators of a nested attribute a configuration sets", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"o": schema.ListNestedAttribute{Optional: true, Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{"s": str}}}}}},
		{name: "list block", schema: schema.Schema{Blocks: map[string]schema.Block{
			"b": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkValidation(tt.schema); (err == nil) != tt.ok {
				t.Fatalf("checkValidation = %v, want ok = %v", err, tt.ok)
			}
		})
	}
}
