package protocol

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Each TestFrameworkBehaviour_<Name> compares one behaviour framework.go
// copies from terraform-plugin-framework with the answer of the framework in
// go.mod, sending the same request to the shortcuts and to the framework's
// server, both serving the probe resource. A framework upgrade that changes
// a behaviour fails its test: change the copy in framework.go.

func TestFrameworkBehaviour_ValidationOrder(t *testing.T) {
	cfg := &probeConfig{configure: warns("Configure"), validators: warns("ConfigValidator"), validate: noisy("ValidateConfig")}
	for _, configured := range []bool{true, false} {
		pp := newProbePair(t, cfg, configured)
		x := send(t, pp, validateReq(t, map[string]tftypes.Value{"name": str("a")}, false), tfprotov6.ProviderServer.ValidateResourceConfig)
		if !x.answeredByShortcut {
			t.Fatal("the shortcut handed on a configuration the schema finds valid")
		}
		x.assertCalls(t, true)
		sameDiagnostics(t, x.got.Diagnostics, x.want.Diagnostics)
	}
}

func TestFrameworkBehaviour_SchemaValidation(t *testing.T) {
	tests := []struct {
		name      string
		attrs     map[string]tftypes.Value
		writeOnly bool
	}{
		{name: "valid", attrs: map[string]tftypes.Value{"name": str("a")}},
		{name: "validator", attrs: map[string]tftypes.Value{"name": str("")}},
		{name: "required null", attrs: map[string]tftypes.Value{}},
		{name: "unknown required", attrs: map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}},
		{name: "read-only set", attrs: map[string]tftypes.Value{"name": str("a"), "id": str("x")}},
		{name: "write-only without the capability", attrs: map[string]tftypes.Value{"name": str("a"), "secret": str("s")}},
		{name: "write-only with the capability", attrs: map[string]tftypes.Value{"name": str("a"), "secret": str("s")}, writeOnly: true},
		{name: "deprecated set", attrs: map[string]tftypes.Value{"name": str("a"), "old": str("o")}},
		{name: "deprecated unknown", attrs: map[string]tftypes.Value{"name": str("a"), "old": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pp := newProbePair(t, &probeConfig{}, true)
			x := send(t, pp, validateReq(t, tt.attrs, tt.writeOnly), tfprotov6.ProviderServer.ValidateResourceConfig)
			// The probe's ValidateConfig warns on a configured resource; the
			// schema's findings are the rest.
			schemaFinds := len(x.want.Diagnostics) > 1
			if x.answeredByShortcut == schemaFinds {
				t.Fatalf("shortcut answered = %v, framework's findings %s", x.answeredByShortcut, diagString(x.want.Diagnostics))
			}
			sameDiagnostics(t, x.got.Diagnostics, x.want.Diagnostics)
		})
	}
}

func TestFrameworkBehaviour_CreatePlanOrder(t *testing.T) {
	for name, attrs := range map[string]map[string]tftypes.Value{
		"defaults and unknowns": {"name": str("a")},
		"default configured":    {"name": str("a"), "note": str("mine")},
		"write-only configured": {"name": str("a"), "secret": str("s3cret")},
		"unknown configured":    {"name": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)},
	} {
		t.Run(name, func(t *testing.T) {
			pp := newProbePair(t, &probeConfig{}, true)
			x := send(t, pp, createPlanReq(t, attrs, true), tfprotov6.ProviderServer.PlanResourceChange)
			if !x.answeredByShortcut {
				t.Fatal("the shortcut handed the plan on")
			}
			samePlan(t, x.got, x.want)
		})
	}
}

func TestFrameworkBehaviour_PlanAnswer(t *testing.T) {
	cfg := &probeConfig{
		plan:        noisy("ModifyPlan"),
		replace:     path.Paths{path.Root("note"), path.Root("name"), path.Root("note")},
		planPrivate: map[string]string{"p": `{"a":1}`, "q": `"x"`},
		deferred:    true,
	}
	pp := newProbePair(t, cfg, true)
	x := send(t, pp, createPlanReq(t, map[string]tftypes.Value{"name": str("a")}, true), tfprotov6.ProviderServer.PlanResourceChange)
	samePlan(t, x.got, x.want)
}

func TestFrameworkBehaviour_PrivateEnvelope(t *testing.T) {
	for name, private := range map[string]map[string]string{
		"keys":           {"k": `"v"`, "n": `{"a":[1,2]}`},
		"an empty value": {"k": `"v"`, "empty": ""},
		"not JSON":       {"k": `"v"`, "bad": "not json"},
		"not UTF-8":      {"bad": "\"\xff\""},
		"restricted key": {".x": `"v"`, "k": `"v"`},
	} {
		t.Run(name, func(t *testing.T) {
			pp := newProbePair(t, &probeConfig{planPrivate: private}, true)
			plan := send(t, pp, createPlanReq(t, map[string]tftypes.Value{"name": str("a")}, true), tfprotov6.ProviderServer.PlanResourceChange)
			samePlan(t, plan.got, plan.want)
		})
	}
	// The shortcuts read what the framework wrote.
	pp := newProbePair(t, &probeConfig{planPrivate: map[string]string{"k": `"v"`}}, true)
	x := send(t, pp, createPlanReq(t, map[string]tftypes.Value{"name": str("a")}, true), tfprotov6.ProviderServer.PlanResourceChange)
	got, ok := privateData(x.want.PlannedPrivate)
	if !ok || string(got["k"]) != `"v"` {
		t.Fatalf("privateData(%q) = %q, %v", x.want.PlannedPrivate, got, ok)
	}
}

func TestFrameworkBehaviour_Diagnostics(t *testing.T) {
	at := func(p path.Path) diag.Diagnostic {
		return diag.NewAttributeWarningDiagnostic(p, "At "+p.String(), "detail")
	}
	cfg := &probeConfig{plan: diag.Diagnostics{
		at(path.Root("name")),
		at(path.Root("m").AtMapKey("k")),
		at(path.Root("l").AtListIndex(2).AtName("x")),
		at(path.Root("s").AtSetValue(types.StringValue("v"))),
		at(path.Empty()),
		diag.NewErrorDiagnostic("Plain", "no path"),
		diag.NewWarningDiagnostic("Warning", ""),
	}}
	pp := newProbePair(t, cfg, true)
	x := send(t, pp, createPlanReq(t, map[string]tftypes.Value{"name": str("a")}, true), tfprotov6.ProviderServer.PlanResourceChange)
	samePlan(t, x.got, x.want)
}

func TestFrameworkBehaviour_NullIdentity(t *testing.T) {
	pp := newProbePair(t, &probeConfig{}, true)
	createPlan := send(t, pp, createPlanReq(t, map[string]tftypes.Value{"name": str("a")}, false), tfprotov6.ProviderServer.PlanResourceChange)
	samePlan(t, createPlan.got, createPlan.want)
	for _, identity := range []bool{true, false} {
		unchanged := send(t, pp, unchangedPlanReq(t, identity), tfprotov6.ProviderServer.PlanResourceChange)
		if !unchanged.answeredByShortcut {
			t.Fatal("the shortcut handed the unchanged plan on")
		}
		samePlan(t, unchanged.got, unchanged.want)
	}
}

func TestFrameworkBehaviour_UpgradeCurrent(t *testing.T) {
	for raw, fits := range map[string]bool{
		`{"name":"a","note":"n","id":"id-1","secret":null,"old":null}`: true,
		`{"name":"a","id":"id-1"}`:                                     true,
		// An attribute the schema no longer has: the framework drops it.
		`{"name":"a","note":"n","id":"id-1","gone":{"x":[1]}}`: false,
	} {
		pp := newProbePair(t, &probeConfig{}, true)
		req := &tfprotov6.UpgradeResourceStateRequest{TypeName: probeType, Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(raw)}}
		x := send(t, pp, req, tfprotov6.ProviderServer.UpgradeResourceState)
		if x.answeredByShortcut != fits {
			t.Fatalf("%s: answered by the shortcut %v, want %v", raw, x.answeredByShortcut, fits)
		}
		sameDiagnostics(t, x.got.Diagnostics, x.want.Diagnostics)
		// A JSON answer is decoded by the CLI with the schema's type, as here.
		got := x.got.UpgradedState
		if len(got.JSON) > 0 {
			v, err := got.Unmarshal(probeTyp)
			if err != nil {
				t.Fatal(err)
			}
			dv, err := tfprotov6.NewDynamicValue(probeTyp, v)
			if err != nil {
				t.Fatal(err)
			}
			got = &dv
		}
		sameValue(t, raw, probeTyp, got, x.want.UpgradedState)
	}
}

func TestFrameworkBehaviour_ConfigureFailure(t *testing.T) {
	cfg := &probeConfig{configure: noisy("Configure")}
	pp := newProbePair(t, cfg, true)
	v := send(t, pp, validateReq(t, map[string]tftypes.Value{"name": str("a")}, false), tfprotov6.ProviderServer.ValidateResourceConfig)
	sameDiagnostics(t, v.got.Diagnostics, v.want.Diagnostics)
	p := send(t, pp, createPlanReq(t, map[string]tftypes.Value{"name": str("a")}, true), tfprotov6.ProviderServer.PlanResourceChange)
	samePlan(t, p.got, p.want)
	for _, x := range []bool{v.answeredByShortcut, p.answeredByShortcut} {
		if !x {
			t.Fatal("a shortcut handed a call on after Configure ran")
		}
	}
}
