package functions

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

func TestUnitFunction_ValidateSettingsListsProblems(t *testing.T) {
	t.Parallel()
	settings := convert.ToDynamic(map[string]any{"replicas": "x", "extra": true})
	resp := runSettingsFunction(t, NewValidateSettings(), unitSchema, settings, types.ListUnknown(types.ObjectType{AttrTypes: problemAttrTypes}))
	if resp.Error != nil {
		t.Fatal(resp.Error)
	}
	got, _, err := convert.FromDynamic(types.DynamicValue(resp.Result.Value()))
	if err != nil {
		t.Fatal(err)
	}
	list, ok := got.([]any)
	if !ok || len(list) != 2 {
		t.Fatalf("problems: %#v", got)
	}
	if p := list[0].(map[string]any); p["path"] != "extra" || p["kind"] != "undeclared" {
		t.Fatalf("first problem %#v", p)
	}
}

func TestUnitFunction_EffectiveSettingsAppliesDefaultsAndRejects(t *testing.T) {
	t.Parallel()
	resp := runSettingsFunction(t, NewEffectiveSettings(), "type: object\nproperties:\n  replicas: {type: integer, default: 1}\n  name: {type: string}\n",
		convert.ToDynamic(map[string]any{"name": "a"}), types.DynamicUnknown())
	if resp.Error != nil {
		t.Fatal(resp.Error)
	}
	got, _, _ := convert.FromDynamic(types.DynamicValue(resp.Result.Value()))
	if m, ok := got.(map[string]any); !ok || m["replicas"] != int64(1) || m["name"] != "a" {
		t.Fatalf("effective %#v", got)
	}
	resp = runSettingsFunction(t, NewEffectiveSettings(), unitSchema, convert.ToDynamic(map[string]any{"replicas": "x"}), types.DynamicUnknown())
	if resp.Error == nil || !strings.Contains(resp.Error.Error(), "replicas: must be integer, got string (type)") {
		t.Fatalf("error %v", resp.Error)
	}
	resp = runSettingsFunction(t, NewEffectiveSettings(), unitSchema, convert.ToDynamic([]any{}), types.DynamicUnknown())
	if resp.Error == nil || !strings.Contains(resp.Error.Error(), "settings must be an object, got array") {
		t.Fatalf("error %v", resp.Error)
	}
	resp = runSettingsFunction(t, NewEffectiveSettings(), " ", convert.ToDynamic(nil), types.DynamicUnknown())
	if resp.Error == nil || !strings.Contains(resp.Error.Error(), "empty") {
		t.Fatalf("error %v", resp.Error)
	}
}

func runSettingsFunction(t *testing.T, f function.Function, schema string, settings attr.Value, result attr.Value) *function.RunResponse {
	t.Helper()
	resp := &function.RunResponse{Result: function.NewResultData(result)}
	f.Run(context.Background(), function.RunRequest{
		Arguments: function.NewArgumentsData([]attr.Value{types.StringValue(schema), settings}),
	}, resp)
	return resp
}

const unitSchema = `{"type":"object","properties":{"replicas":{"type":"integer","default":1},"name":{"type":"string"}}}`

// TestUnitFunction_UnpublishableSchemaRefusedWithTheReason: a schema DP's
// typed decode refuses is an argument error naming the place and saying
// DP will not publish it.
func TestUnitFunction_UnpublishableSchemaRefusedWithTheReason(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"n":{"type":"string","x-deckhouse-ui-order":1.5}}}`
	for _, f := range []function.Function{NewEffectiveSettings(), NewValidateSettings()} {
		resp := runSettingsFunction(t, f, schema, convert.ToDynamic(map[string]any{}), types.DynamicUnknown())
		if resp.Error == nil || !strings.Contains(resp.Error.Error(), "/properties/n/x-deckhouse-ui-order") ||
			!strings.Contains(resp.Error.Error(), "DP will not publish this package version") {
			t.Fatalf("error %v", resp.Error)
		}
	}
}
