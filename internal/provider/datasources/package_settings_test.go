package datasources

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

func TestUnitPackageSettings_RequestFromInputs(t *testing.T) {
	t.Parallel()
	catalogType := types.ObjectType{AttrTypes: map[string]attr.Type{"default": types.StringType, "available": types.ListType{ElemType: types.StringType}}}
	m := packageSettingsModel{
		Settings:         convert.ToDynamic(map[string]any{"a": int64(1)}),
		PreviousSettings: types.DynamicNull(),
		HookValues:       convert.ToDynamic(map[string]any{"h": true}),
		ProjectResources: types.MapValueMust(catalogType, map[string]attr.Value{
			"storageclasses": types.ObjectValueMust(catalogType.AttrTypes, map[string]attr.Value{
				"default":   types.StringValue("fast"),
				"available": types.ListValueMust(types.StringType, []attr.Value{types.StringValue("fast")}),
			}),
		}),
		AllowDestructiveSwitch: types.BoolValue(true),
	}
	req, known, diags := settingsRequest(&m)
	if diags.HasError() || !known {
		t.Fatalf("known=%v diags=%v", known, diags)
	}
	if req.HasPrevious || !req.AllowDestructiveSwitch || req.Catalog["storageclasses"].Default != "fast" ||
		!reflect.DeepEqual(req.Settings, map[string]any{"a": int64(1)}) || req.HookValues == nil {
		t.Fatalf("request %+v", req)
	}

	m.PreviousSettings = convert.ToDynamic(map[string]any{})
	if req, _, _ := settingsRequest(&m); !req.HasPrevious {
		t.Fatal("previous_settings = {} is not an update")
	}
	m.Settings = types.DynamicUnknown()
	if _, known, _ := settingsRequest(&m); known {
		t.Fatal("unknown settings reported known")
	}
	m.Settings = types.DynamicNull()
	if req, _, _ := settingsRequest(&m); !reflect.DeepEqual(req.Settings, map[string]any{}) {
		t.Fatal("null settings are not an empty object")
	}
	m.Settings = convert.ToDynamic("x")
	if _, _, diags := settingsRequest(&m); !diags.HasError() {
		t.Fatal("settings that are not an object are accepted")
	}
}

// TestUnitPackageSettings_PreviousRawSettingsBindOldSelf: previous_raw_settings
// is what oldSelf sees, and only on an update (with previous_settings).
func TestUnitPackageSettings_PreviousRawSettingsBindOldSelf(t *testing.T) {
	t.Parallel()
	m := packageSettingsModel{
		Settings:            convert.ToDynamic(map[string]any{}),
		PreviousSettings:    types.DynamicNull(),
		PreviousRawSettings: convert.ToDynamic(map[string]any{"r": int64(1)}),
		HookValues:          types.DynamicNull(),
		ProjectResources:    types.MapNull(types.ObjectType{}),
	}
	if req, _, _ := settingsRequest(&m); req.HasPreviousRaw {
		t.Fatal("previous_raw_settings without previous_settings is not an update")
	}
	m.PreviousSettings = convert.ToDynamic(map[string]any{"r": int64(3)})
	req, known, diags := settingsRequest(&m)
	if diags.HasError() || !known || !req.HasPreviousRaw || !reflect.DeepEqual(req.PreviousRaw, map[string]any{"r": int64(1)}) {
		t.Fatalf("request %+v (known=%v diags=%v)", req, known, diags)
	}
}

// TestUnitPackageSettings_VersionChangeSkipsOldSelfRules: version_change
// makes the request an upgrade (oldSelf rules skipped, as DP skips them),
// only on an update; an unknown value defers the evaluation.
func TestUnitPackageSettings_VersionChangeSkipsOldSelfRules(t *testing.T) {
	t.Parallel()
	m := packageSettingsModel{
		Settings:         convert.ToDynamic(map[string]any{}),
		PreviousSettings: types.DynamicNull(),
		HookValues:       types.DynamicNull(),
		ProjectResources: types.MapNull(types.ObjectType{}),
		VersionChange:    types.BoolValue(true),
	}
	if req, _, _ := settingsRequest(&m); req.VersionChange {
		t.Fatal("version_change without previous_settings is not an update")
	}
	m.PreviousSettings = convert.ToDynamic(map[string]any{})
	if req, known, diags := settingsRequest(&m); diags.HasError() || !known || !req.VersionChange {
		t.Fatalf("request %+v (known=%v diags=%v)", req, known, diags)
	}
	m.VersionChange = types.BoolNull()
	if req, _, _ := settingsRequest(&m); req.VersionChange {
		t.Fatal("null version_change is a version change")
	}
	m.VersionChange = types.BoolUnknown()
	if _, known, _ := settingsRequest(&m); known {
		t.Fatal("unknown version_change reported known")
	}
}
