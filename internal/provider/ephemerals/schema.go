package ephemerals

import (
	"fmt"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	eschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
)

// schemaOf is the ephemeral resource schema with the attributes of the data
// source schema ds and its own description.
func schemaOf(ds dschema.Schema, markdownDescription string) (eschema.Schema, error) {
	if len(ds.Blocks) > 0 {
		return eschema.Schema{}, fmt.Errorf("the data source has blocks, which are not converted")
	}
	attrs, err := attributesOf("", ds.Attributes)
	if err != nil {
		return eschema.Schema{}, err
	}
	return eschema.Schema{
		Attributes:          attrs,
		MarkdownDescription: markdownDescription,
		DeprecationMessage:  ds.DeprecationMessage,
	}, nil
}

func attributesOf(parent string, in map[string]dschema.Attribute) (map[string]eschema.Attribute, error) {
	out := make(map[string]eschema.Attribute, len(in))
	for name, a := range in {
		e, err := attributeOf(parent+name, a)
		if err != nil {
			return nil, err
		}
		out[name] = e
	}
	return out, nil
}

// attributeOf converts one attribute. The leaf attributes of both packages
// have the same fields, so a Go conversion copies them all and stops
// compiling if the framework ever makes them differ; nested attributes
// convert their objects.
func attributeOf(path string, a dschema.Attribute) (eschema.Attribute, error) {
	switch a := a.(type) {
	case dschema.BoolAttribute:
		return eschema.BoolAttribute(a), nil
	case dschema.StringAttribute:
		return eschema.StringAttribute(a), nil
	case dschema.Int32Attribute:
		return eschema.Int32Attribute(a), nil
	case dschema.Int64Attribute:
		return eschema.Int64Attribute(a), nil
	case dschema.Float32Attribute:
		return eschema.Float32Attribute(a), nil
	case dschema.Float64Attribute:
		return eschema.Float64Attribute(a), nil
	case dschema.NumberAttribute:
		return eschema.NumberAttribute(a), nil
	case dschema.DynamicAttribute:
		return eschema.DynamicAttribute(a), nil
	case dschema.ListAttribute:
		return eschema.ListAttribute(a), nil
	case dschema.SetAttribute:
		return eschema.SetAttribute(a), nil
	case dschema.MapAttribute:
		return eschema.MapAttribute(a), nil
	case dschema.ObjectAttribute:
		return eschema.ObjectAttribute(a), nil
	case dschema.SingleNestedAttribute:
		attrs, err := attributesOf(path+".", a.Attributes)
		if err != nil {
			return nil, err
		}
		return eschema.SingleNestedAttribute{
			Attributes: attrs, CustomType: a.CustomType, Required: a.Required, Optional: a.Optional,
			Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description,
			MarkdownDescription: a.MarkdownDescription, DeprecationMessage: a.DeprecationMessage, Validators: a.Validators,
		}, nil
	case dschema.ListNestedAttribute:
		obj, err := nestedObjectOf(path, a.NestedObject)
		if err != nil {
			return nil, err
		}
		return eschema.ListNestedAttribute{
			NestedObject: obj, CustomType: a.CustomType, Required: a.Required, Optional: a.Optional,
			Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description,
			MarkdownDescription: a.MarkdownDescription, DeprecationMessage: a.DeprecationMessage, Validators: a.Validators,
		}, nil
	case dschema.SetNestedAttribute:
		obj, err := nestedObjectOf(path, a.NestedObject)
		if err != nil {
			return nil, err
		}
		return eschema.SetNestedAttribute{
			NestedObject: obj, CustomType: a.CustomType, Required: a.Required, Optional: a.Optional,
			Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description,
			MarkdownDescription: a.MarkdownDescription, DeprecationMessage: a.DeprecationMessage, Validators: a.Validators,
		}, nil
	case dschema.MapNestedAttribute:
		obj, err := nestedObjectOf(path, a.NestedObject)
		if err != nil {
			return nil, err
		}
		return eschema.MapNestedAttribute{
			NestedObject: obj, CustomType: a.CustomType, Required: a.Required, Optional: a.Optional,
			Computed: a.Computed, Sensitive: a.Sensitive, Description: a.Description,
			MarkdownDescription: a.MarkdownDescription, DeprecationMessage: a.DeprecationMessage, Validators: a.Validators,
		}, nil
	}
	return nil, fmt.Errorf("attribute %s: %T is not converted", path, a)
}

func nestedObjectOf(path string, o dschema.NestedAttributeObject) (eschema.NestedAttributeObject, error) {
	attrs, err := attributesOf(path+".", o.Attributes)
	if err != nil {
		return eschema.NestedAttributeObject{}, err
	}
	return eschema.NestedAttributeObject{Attributes: attrs, CustomType: o.CustomType, Validators: o.Validators}, nil
}
