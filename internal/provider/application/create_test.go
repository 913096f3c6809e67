package application

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// Create records the planned state with only the attributes of createFills
// encoded again (setModelOver): a create changes no other attribute of the
// plan's model.
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
			null, err := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := h.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: TypeName,
				PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, cfg)), Config: encodeModel(t, cfg)})
			if err != nil || hasError(resp.Diagnostics) {
				t.Fatalf("plan: %v %s", err, diagText(resp.Diagnostics))
			}
			plan := h.model(resp.PlannedState)
			planned := plan
			w := (&Resource{data: h.p.data}).create(context.Background(), &plan, cfg.SensitiveSettings)
			if w.diags.HasError() || !w.recorded {
				t.Fatalf("create failed: %v", w.diags)
			}
			for _, n := range attributeNames {
				if !fills[n] && !plan.get(n).Equal(planned.get(n)) {
					t.Errorf("create changed %s (not in createFills): planned %v, recorded %v", n, planned.get(n), plan.get(n))
				}
			}
		})
	}
}
