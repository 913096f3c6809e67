package appstatus

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The object types of the status attribute and its parts, from the leaves
// the schemas are made of.
var (
	appliedAttrTypes   = attrTypes(appliedLeaves)
	conditionAttrTypes = attrTypes(conditionLeaves)
	urlAttrTypes       = attrTypes(urlLeaves)
	// AttrTypes is the object type of the status attribute.
	AttrTypes = func() map[string]attr.Type {
		t := attrTypes(summaryLeaves)
		t["urls"] = types.ListType{ElemType: types.ObjectType{AttrTypes: urlAttrTypes}}
		t["configuration_applied"] = types.ObjectType{AttrTypes: appliedAttrTypes}
		t["conditions"] = types.ListType{ElemType: types.ObjectType{AttrTypes: conditionAttrTypes}}
		return t
	}()
	// ResourceAttrTypes is the object type of the resource's status
	// attribute: AttrTypes without conditions.
	ResourceAttrTypes = func() map[string]attr.Type {
		t := maps.Clone(AttrTypes)
		delete(t, "conditions")
		return t
	}()
)

// ResourceUnknown is the unknown status attribute of the resource.
func ResourceUnknown() types.Object { return types.ObjectUnknown(ResourceAttrTypes) }

// ResourceValue is the Terraform value of the resource's status attribute:
// Value without conditions.
func (s Status) ResourceValue() types.Object {
	attrs := s.Value().Attributes()
	delete(attrs, "conditions")
	return types.ObjectValueMust(ResourceAttrTypes, attrs)
}

// Value is the Terraform value of the status attribute: the same in the
// data sources.
func (s Status) Value() types.Object {
	urls := make([]attr.Value, 0, len(s.URLs))
	for _, u := range s.URLs {
		urls = append(urls, types.ObjectValueMust(urlAttrTypes, map[string]attr.Value{
			"url": types.StringPointerValue(u.URL), "description": types.StringPointerValue(u.Description),
		}))
	}
	conds := make([]attr.Value, 0, len(s.Conditions))
	for _, c := range s.Conditions {
		attrs := c.attributes()
		attrs["type"] = types.StringValue(c.Type)
		conds = append(conds, types.ObjectValueMust(conditionAttrTypes, attrs))
	}
	applied := types.ObjectNull(appliedAttrTypes)
	if s.ConfigurationApplied != nil {
		applied = types.ObjectValueMust(appliedAttrTypes, s.ConfigurationApplied.attributes())
	}
	return types.ObjectValueMust(AttrTypes, map[string]attr.Value{
		"state":                 types.StringPointerValue(s.State),
		"message":               types.StringPointerValue(s.Message),
		"tip":                   types.StringPointerValue(s.Tip),
		"installed_version":     types.StringPointerValue(s.InstalledVersion),
		"urls":                  types.ListValueMust(types.ObjectType{AttrTypes: urlAttrTypes}, urls),
		"configuration_applied": applied,
		"conditions":            types.ListValueMust(types.ObjectType{AttrTypes: conditionAttrTypes}, conds),
	})
}

// attributes are the attributes of a condition other than its type.
func (c Condition) attributes() map[string]attr.Value {
	return map[string]attr.Value{
		"status":              types.StringPointerValue(c.Status),
		"reason":              types.StringPointerValue(c.Reason),
		"message":             types.StringPointerValue(c.Message),
		"observed_generation": types.Int64PointerValue(c.ObservedGeneration),
	}
}
