package datasources

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

func TestUnitPackage_FailOnTurnsFindingsIntoDiagnostics(t *testing.T) {
	t.Parallel()
	findings := []engine.Finding{
		{Rule: "bilingual", Severity: engine.SeverityError, File: "openapi/settings.yaml", Message: "missing"},
		{Rule: "enum", Severity: engine.SeverityWarning, File: "openapi/settings.yaml", SchemaPath: "/properties/a/enum", Message: "camel"},
	}
	cases := []struct {
		failOn           string
		errors, warnings int
	}{
		{failOnError, 1, 1},
		{failOnWarning, 2, 0},
		{failOnNever, 0, 0},
	}
	for _, tc := range cases {
		d := findingDiagnostics(findings, tc.failOn)
		if d.ErrorsCount() != tc.errors || d.WarningsCount() != tc.warnings {
			t.Errorf("fail_on=%s: %d errors, %d warnings", tc.failOn, d.ErrorsCount(), d.WarningsCount())
		}
	}
	if d := findingDiagnostics(findings[1:], failOnError); d[0].Detail() != "openapi/settings.yaml at /properties/a/enum: camel" {
		t.Errorf("detail %q", d[0].Detail())
	}
	if !checkFailOn(types.StringValue("sometimes")).HasError() || checkFailOn(types.StringNull()).HasError() {
		t.Error("fail_on validation")
	}
}

func TestUnitPackage_SettingsListsTopLevelFieldsOnly(t *testing.T) {
	t.Parallel()
	order := 5
	l := settingFieldList([]engine.Field{
		{Path: engine.Path{}.Key("a"), Type: "string", UIOrder: &order, UIGroup: "G"},
		{Path: engine.Path{}.Key("a").Key("b"), Type: "integer"},
		{Path: engine.Path{}.Key("c"), Type: "object", UIAdvanced: true},
	})
	got, _, err := convert.FromDynamic(types.DynamicValue(l))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"name": "a", "type": "string", "description": "", "ui_order": int64(5), "ui_group": "G", "ui_advanced": false},
		map[string]any{"name": "c", "type": "object", "description": "", "ui_order": nil, "ui_group": "", "ui_advanced": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}
