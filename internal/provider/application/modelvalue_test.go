package application

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// The model's converter matches the schema, and gives what the framework's
// Get and Set give for the models the resource stores and plans.
func TestModelObject_GivesWhatTheFrameworksGetAndSetGive(t *testing.T) {
	ctx := context.Background()
	if _, err := modelObject(); err != nil {
		t.Fatalf("applicationModel does not match the schema: %v", err)
	}
	var sr resource.SchemaResponse
	(&Resource{}).Schema(ctx, resource.SchemaRequest{}, &sr)

	planned := appState()
	planned.ID = types.StringUnknown()
	planned.Status = appstatus.ResourceUnknown()
	planned.EffectiveSettings = types.StringUnknown()
	planned.LastAppliedSettings = types.StringUnknown()
	planned.Settings = convert.ToDynamic(map[string]any{"replicas": 3, "list": []any{"a", 1, true}})
	withMetadata := appState()
	withMetadata.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("a")})
	withMetadata.SensitiveSettingsVersion = types.StringValue("1")
	configured := configOf(appState())

	for name, m := range map[string]applicationModel{
		"applied state": appState(), "planned create": planned, "labels and a sensitive version": withMetadata,
		"configuration": configured,
	} {
		t.Run(name, func(t *testing.T) {
			var fw tfsdk.State
			fw.Schema = sr.Schema
			if d := fw.Set(ctx, &m); d.HasError() {
				t.Fatalf("framework Set: %v", d)
			}
			fast := tfsdk.State{Schema: sr.Schema}
			if d := setModel(ctx, &fast, &m); d.HasError() {
				t.Fatalf("setModel: %v", d)
			}
			if !fast.Raw.Equal(fw.Raw) {
				t.Fatalf("setModel gives\n%s\nthe framework\n%s", fast.Raw, fw.Raw)
			}
			var fromFW, fromFast applicationModel
			if d := fw.Get(ctx, &fromFW); d.HasError() {
				t.Fatalf("framework Get: %v", d)
			}
			if d := getModel(ctx, fast, &fromFast); d.HasError() {
				t.Fatalf("getModel: %v", d)
			}
			if !sameModel(&fromFast, &fromFW) || !sameModel(&fromFast, &m) {
				t.Fatalf("getModel gives %+v, the framework %+v", fromFast, fromFW)
			}
		})
	}
}
