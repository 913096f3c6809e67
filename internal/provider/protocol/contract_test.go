package protocol

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// noisy gives a warning at an attribute and an error, as a resource method
// that checks something and finds it wrong does.
func noisy(method string) diag.Diagnostics {
	return diag.Diagnostics{
		diag.NewAttributeWarningDiagnostic(path.Root("name"), method+" warns", "about the name"),
		diag.NewErrorDiagnostic(method+" fails", "a check of "+method+" failed"),
	}
}

func warns(method string) diag.Diagnostics {
	return diag.Diagnostics{diag.NewWarningDiagnostic(method+" warns", "a note of "+method)}
}

// Every shortcut, driven with a resource whose methods report diagnostics,
// either answers with them exactly as the framework would or hands the call
// on before a resource method ran: no resource method runs twice for one
// call, and the answer is the framework's.
func TestShortcuts_RunEachResourceMethodOnceAndAnswerAsTheFramework(t *testing.T) {
	validConfig := map[string]tftypes.Value{"name": str("a")}
	t.Run("validate", func(t *testing.T) {
		for name, cfg := range map[string]*probeConfig{
			"ConfigValidators and ValidateConfig report": {validators: noisy("ConfigValidator"), validate: noisy("ValidateConfig")},
			"Configure warns": {configure: warns("Configure"), validate: warns("ValidateConfig")},
			"Configure fails": {configure: noisy("Configure")},
		} {
			t.Run(name, func(t *testing.T) {
				for _, configured := range []bool{true, false} {
					pp := newProbePair(t, cfg, configured)
					x := send(t, pp, validateReq(t, validConfig, false), tfprotov6.ProviderServer.ValidateResourceConfig)
					x.assertCalls(t, true)
					if !x.answeredByShortcut {
						t.Error("the shortcut handed on a configuration the schema finds valid")
					}
					sameDiagnostics(t, x.got.Diagnostics, x.want.Diagnostics)
				}
			})
		}
		t.Run("schema finds something", func(t *testing.T) {
			pp := newProbePair(t, &probeConfig{validate: noisy("ValidateConfig")}, true)
			x := send(t, pp, validateReq(t, map[string]tftypes.Value{"name": str("")}, false), tfprotov6.ProviderServer.ValidateResourceConfig)
			x.assertCalls(t, true)
			sameDiagnostics(t, x.got.Diagnostics, x.want.Diagnostics)
		})
	})
	t.Run("plan create", func(t *testing.T) {
		for name, cfg := range map[string]*probeConfig{
			"ModifyPlan reports":  {plan: noisy("ModifyPlan")},
			"ModifyPlan warns":    {plan: warns("ModifyPlan")},
			"Configure fails":     {configure: noisy("Configure"), plan: noisy("ModifyPlan")},
			"Configure warns":     {configure: warns("Configure"), plan: warns("ModifyPlan")},
			"replacement, defer":  {plan: warns("ModifyPlan"), replace: path.Paths{path.Root("note"), path.Root("name"), path.Root("note")}, deferred: true},
			"private state given": {plan: warns("ModifyPlan"), planPrivate: map[string]string{"p": `{"a":1}`}},
		} {
			t.Run(name, func(t *testing.T) {
				for _, identity := range []bool{true, false} {
					pp := newProbePair(t, cfg, true)
					x := send(t, pp, createPlanReq(t, validConfig, identity), tfprotov6.ProviderServer.PlanResourceChange)
					x.assertCalls(t, true)
					if !x.answeredByShortcut {
						t.Error("the shortcut handed the plan on")
					}
					samePlan(t, x.got, x.want)
				}
			})
		}
	})
	t.Run("plan unchanged", func(t *testing.T) {
		pp := newProbePair(t, &probeConfig{unchanged: noisy("ModifyPlan")}, true)
		x := send(t, pp, unchangedPlanReq(t, true), tfprotov6.ProviderServer.PlanResourceChange)
		x.assertCalls(t, true)
		samePlan(t, x.got, x.want)
	})
	// A destroy's plan has no shortcut (the CLIs make it themselves, the
	// provider not announcing PlanDestroy): one sent anyway goes to the
	// framework untouched.
	t.Run("plan destroy", func(t *testing.T) {
		pp := newProbePair(t, &probeConfig{destroy: noisy("ModifyPlan")}, true)
		x := send(t, pp, destroyPlanReq(t, true), tfprotov6.ProviderServer.PlanResourceChange)
		x.assertCalls(t, true)
		if x.answeredByShortcut {
			t.Error("a shortcut answered the plan of a destroy")
		}
		samePlan(t, x.got, x.want)
	})
	t.Run("upgrade", func(t *testing.T) {
		pp := newProbePair(t, &probeConfig{configure: noisy("Configure")}, true)
		req := &tfprotov6.UpgradeResourceStateRequest{TypeName: probeType, Version: 0,
			RawState: &tfprotov6.RawState{JSON: []byte(`{"name":"a","note":"n","id":"id-1"}`)}}
		x := send(t, pp, req, tfprotov6.ProviderServer.UpgradeResourceState)
		x.assertCalls(t, true)
		if !x.answeredByShortcut {
			t.Error("the shortcut handed the upgrade on")
		}
		sameDiagnostics(t, x.got.Diagnostics, x.want.Diagnostics)
		sameValue(t, "upgraded state", probeTyp, x.got.UpgradedState, x.want.UpgradedState)
	})
}
