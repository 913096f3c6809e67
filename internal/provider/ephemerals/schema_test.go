package ephemerals

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	eschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/datasources"
)

// The ephemeral resource has the data source's attributes: the same type
// (so the data source's result is the ephemeral result), and each attribute
// with the same flags, sensitivity and description; only the page's
// description is its own.
func TestSchema_IsTheDataSourcesWithItsOwnDescription(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var ds datasource.SchemaResponse
	datasources.NewApplication().Schema(ctx, datasource.SchemaRequest{}, &ds)
	var es ephemeral.SchemaResponse
	NewApplication().Schema(ctx, ephemeral.SchemaRequest{}, &es)
	if es.Diagnostics.HasError() {
		t.Fatal(es.Diagnostics)
	}
	if !es.Schema.Type().TerraformType(ctx).Equal(ds.Schema.Type().TerraformType(ctx)) {
		t.Fatalf("types differ:\n%s\n%s", es.Schema.Type().TerraformType(ctx), ds.Schema.Type().TerraformType(ctx))
	}
	sameAttributes(t, "", ds.Schema.Attributes, es.Schema.Attributes)
	for _, name := range []string{"settings", "effective_settings", "last_applied_settings"} {
		if !es.Schema.Attributes[name].IsSensitive() {
			t.Errorf("%s is not sensitive", name)
		}
	}
	if es.Schema.MarkdownDescription == ds.Schema.MarkdownDescription ||
		!strings.Contains(es.Schema.MarkdownDescription, "no state or plan file") {
		t.Errorf("the description is not the ephemeral resource's own: %q", es.Schema.MarkdownDescription)
	}
}

// sameAttributes compares what a data source and an ephemeral attribute have
// in common, nested attributes included.
func sameAttributes(t *testing.T, parent string, ds map[string]dschema.Attribute, es map[string]eschema.Attribute) {
	t.Helper()
	if len(ds) != len(es) {
		t.Errorf("%s: %d attributes, want %d", parent, len(es), len(ds))
	}
	for name, d := range ds {
		e, ok := es[name]
		if !ok {
			t.Errorf("%s%s is missing", parent, name)
			continue
		}
		if d.IsRequired() != e.IsRequired() || d.IsOptional() != e.IsOptional() || d.IsComputed() != e.IsComputed() ||
			d.IsSensitive() != e.IsSensitive() || d.GetMarkdownDescription() != e.GetMarkdownDescription() ||
			d.GetDescription() != e.GetDescription() || !d.GetType().Equal(e.GetType()) {
			t.Errorf("%s%s differs: %#v against %#v", parent, name, e, d)
		}
		if dc := dChildren(d); dc != nil {
			sameAttributes(t, parent+name+".", dc, eChildren(e))
		}
	}
}

func dChildren(a dschema.Attribute) map[string]dschema.Attribute {
	switch a := a.(type) {
	case dschema.SingleNestedAttribute:
		return a.Attributes
	case dschema.ListNestedAttribute:
		return a.NestedObject.Attributes
	case dschema.SetNestedAttribute:
		return a.NestedObject.Attributes
	case dschema.MapNestedAttribute:
		return a.NestedObject.Attributes
	}
	return nil
}

func eChildren(a eschema.Attribute) map[string]eschema.Attribute {
	switch a := a.(type) {
	case eschema.SingleNestedAttribute:
		return a.Attributes
	case eschema.ListNestedAttribute:
		return a.NestedObject.Attributes
	case eschema.SetNestedAttribute:
		return a.NestedObject.Attributes
	case eschema.MapNestedAttribute:
		return a.NestedObject.Attributes
	}
	return map[string]eschema.Attribute{}
}

// Every kind of data source attribute converts, with its validators.
func TestSchemaOf_ConvertsEveryAttributeKind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	oneOf := []validator.String{stringvalidator.OneOf("a", "b")}
	leaves := map[string]dschema.Attribute{
		"bool":    dschema.BoolAttribute{Optional: true},
		"string":  dschema.StringAttribute{Required: true, Validators: oneOf, MarkdownDescription: "a string"},
		"int32":   dschema.Int32Attribute{Computed: true},
		"int64":   dschema.Int64Attribute{Computed: true},
		"float32": dschema.Float32Attribute{Computed: true},
		"float64": dschema.Float64Attribute{Computed: true},
		"number":  dschema.NumberAttribute{Computed: true},
		"dynamic": dschema.DynamicAttribute{Computed: true, Sensitive: true},
		"list":    dschema.ListAttribute{Computed: true, ElementType: types.StringType},
		"set":     dschema.SetAttribute{Computed: true, ElementType: types.Int64Type},
		"map":     dschema.MapAttribute{Computed: true, ElementType: types.BoolType},
		"object":  dschema.ObjectAttribute{Computed: true, AttributeTypes: map[string]attr.Type{"x": types.StringType}},
	}
	nested := dschema.NestedAttributeObject{Attributes: leaves}
	ds := dschema.Schema{Attributes: map[string]dschema.Attribute{
		"single": dschema.SingleNestedAttribute{Optional: true, Attributes: leaves},
		"list":   dschema.ListNestedAttribute{Computed: true, NestedObject: nested},
		"set":    dschema.SetNestedAttribute{Computed: true, NestedObject: nested},
		"map":    dschema.MapNestedAttribute{Computed: true, NestedObject: nested},
	}}
	for n, a := range leaves {
		ds.Attributes[n+"_leaf"] = a
	}
	es, err := schemaOf(ds, "own")
	if err != nil {
		t.Fatal(err)
	}
	if !es.Type().TerraformType(ctx).Equal(ds.Type().TerraformType(ctx)) {
		t.Fatalf("types differ:\n%s\n%s", es.Type().TerraformType(ctx), ds.Type().TerraformType(ctx))
	}
	sameAttributes(t, "", ds.Attributes, es.Attributes)
	if got := es.Attributes["single"].(eschema.SingleNestedAttribute).Attributes["string"].(eschema.StringAttribute).Validators; len(got) != 1 {
		t.Errorf("single.string has %d validators, want the data source's one", len(got))
	}
	if got := es.Attributes["string_leaf"].(eschema.StringAttribute).Validators; len(got) != 1 {
		t.Errorf("string_leaf has %d validators, want the data source's one", len(got))
	}
}

// A block is not converted: the error says so instead of a schema without it.
func TestSchemaOf_RefusesBlocks(t *testing.T) {
	t.Parallel()
	_, err := schemaOf(dschema.Schema{Blocks: map[string]dschema.Block{"b": dschema.SingleNestedBlock{}}}, "")
	if err == nil || !strings.Contains(err.Error(), "blocks") {
		t.Fatalf("err = %v, want one about blocks", err)
	}
}

// The data source has no configuration validators beyond its attributes'
// (which the conversion keeps): were it given some, the ephemeral resource
// would have to run them too.
func TestSource_HasNoConfigValidatorsToForward(t *testing.T) {
	t.Parallel()
	ds := datasources.NewApplication()
	if _, ok := ds.(datasource.DataSourceWithValidateConfig); ok {
		t.Error("the data source has ValidateConfig: run it from the ephemeral resource's ValidateConfig")
	}
	if _, ok := ds.(datasource.DataSourceWithConfigValidators); ok {
		t.Error("the data source has ConfigValidators: run them from the ephemeral resource's ValidateConfig")
	}
}
