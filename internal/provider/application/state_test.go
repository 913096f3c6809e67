package application

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// appState is an applied Application as the state holds it.
func appState() applicationModel {
	settings := convert.ToDynamic(map[string]any{"replicas": 2, "ingress": map[string]any{"host": "a.example.com"}})
	effective := convert.ToJSONString(map[string]any{"replicas": 2, "logLevel": "Info", "ingress": map[string]any{"host": "a.example.com"}})
	m := applicationModel{
		ID:                             types.StringValue("demo/app"),
		Name:                           types.StringValue("app"),
		Namespace:                      types.StringValue("demo"),
		PackageName:                    types.StringValue("demo-app"),
		PackageVersion:                 types.StringValue("v1.0.0"),
		PackageRepositoryName:          types.StringValue("demo"),
		ReleaseChannel:                 types.StringNull(),
		Maintenance:                    types.StringNull(),
		Labels:                         types.MapNull(types.StringType),
		Annotations:                    types.MapNull(types.StringType),
		Settings:                       settings,
		SensitiveSettings:              types.DynamicNull(),
		SensitiveSettingsVersion:       types.StringNull(),
		ImmutableFieldChange:           types.StringValue(immutableModeError),
		AllowDestructiveSettingsSwitch: types.BoolValue(false),
		Wait:                           types.BoolValue(true),
		WaitFor:                        types.StringValue("ConfigurationApplied"),
		FieldManager:                   types.StringNull(),
		ForceConflicts:                 types.BoolNull(),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "update": types.StringType, "delete": types.StringType,
		})},
		EffectiveSettings: effective,
		Status: appstatus.Status{
			State: ptr("Ready"), InstalledVersion: ptr("v1.0.0"),
			ConfigurationApplied: &appstatus.Condition{Type: "ConfigurationApplied", Status: ptr("True"), Reason: ptr("Applied")},
		}.ResourceValue(),
		LastAppliedSettings: effective,
	}
	fillNulls(&m)
	return m
}

// configOf is the configuration that produced m: computed values null, and
// the attributes with defaults left out.
func configOf(m applicationModel) applicationModel {
	for _, n := range attributeNames {
		if a := attributes[n]; a.computed() {
			m.set(n, nullValue(a.attrType()))
		}
	}
	return m
}

// fillNulls sets every attribute m leaves unset (a zero value) to null.
func fillNulls(m *applicationModel) {
	for _, n := range attributeNames {
		if f, ok := m.field(n); ok && f.IsZero() {
			m.set(n, nullValue(attributes[n].attrType()))
		}
	}
}

// resourceTypes are the resource's schema and the object types of its state
// and identity.
func resourceTypes() (schema.Schema, tftypes.Type, tftypes.Type) {
	ctx := context.Background()
	var resp resource.SchemaResponse
	NewResource().Schema(ctx, resource.SchemaRequest{}, &resp)
	var idResp resource.IdentitySchemaResponse
	(&Resource{}).IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &idResp)
	return resp.Schema, resp.Schema.Type().TerraformType(ctx), idResp.IdentitySchema.Type().TerraformType(ctx)
}

func stateType() tftypes.Type    { _, typ, _ := resourceTypes(); return typ }
func identityType() tftypes.Type { _, _, typ := resourceTypes(); return typ }

func encodeModel(t *testing.T, m applicationModel) *tfprotov6.DynamicValue {
	t.Helper()
	ctx := context.Background()
	sch, typ, _ := resourceTypes()
	st := tfsdk.State{Schema: sch, Raw: tftypes.NewValue(typ, nil)}
	if diags := st.Set(ctx, &m); diags.HasError() {
		t.Fatalf("encode model: %v", diags)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, st.Raw)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func encodeIdentity(t *testing.T, namespace, name string) *tfprotov6.ResourceIdentityData {
	t.Helper()
	typ := identityType()
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{
		"namespace": tftypes.NewValue(tftypes.String, namespace),
		"name":      tftypes.NewValue(tftypes.String, name),
	}))
	if err != nil {
		t.Fatal(err)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

func decodeModel(t *testing.T, dv *tfprotov6.DynamicValue) tftypes.Value {
	t.Helper()
	v, err := dv.Unmarshal(stateType())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }
