package application

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// Create records the planned state with only the attributes of createFills
// encoded again: a create changes no other attribute of the plan.
func TestCreate_ChangesOnlyTheAttributesOfCreateFills(t *testing.T) {
	noRepo := demoConfig(map[string]any{"replicas": 2})
	noRepo.PackageRepositoryName = types.StringNull()
	noWait := demoConfig(map[string]any{"replicas": 2})
	noWait.Wait = types.BoolValue(false)
	withSecret := demoConfig(map[string]any{"replicas": 2})
	withSecret.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"password": "s3cret"}})
	withSecret.SensitiveSettingsVersion = types.StringValue("1")
	fills := map[string]bool{}
	for _, name := range createFills {
		fills[name] = true
	}
	for name, cfg := range map[string]applicationModel{
		"applied": demoConfig(map[string]any{"replicas": 2}), "repository resolved": noRepo, "without waiting": noWait,
		"with sensitive settings": withSecret,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			st := h.planAndApply(nil, nil, cfg)
			if st.apply == nil || hasError(st.apply.Diagnostics) {
				t.Fatalf("create failed: %s", diagText(st.plan.Diagnostics))
			}
			var planned, recorded map[string]tftypes.Value
			if err := decodeModel(t, st.plan.PlannedState).As(&planned); err != nil {
				t.Fatal(err)
			}
			if err := decodeModel(t, st.apply.NewState).As(&recorded); err != nil {
				t.Fatal(err)
			}
			for attr, v := range recorded {
				if !v.Equal(planned[attr]) && !fills[attr] {
					t.Errorf("create changed %s (not in createFills): planned %v, recorded %v", attr, planned[attr], v)
				}
			}
		})
	}
}
