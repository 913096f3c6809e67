package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/protocol"
)

// Under a provider configuration that is not wholly known, a client that
// allows deferred actions gets a deferral (provider configuration unknown)
// for the resource's plan and refresh, the cluster data sources and the
// ephemeral resource, with the shortcuts on and off. Without the client's
// leave: the create plan warns that the settings are not checked, the
// refresh keeps the prior state and warns, the data source and the ephemeral
// resource fail naming depends_on. A wholly known configuration defers
// nothing.
func TestProtocolServer_DefersWhenTheClientAllowsAndTheConfigurationIsUnknown(t *testing.T) {
	const res, ds, eph = "deckhouse_application", "deckhouse_package_versions", "deckhouse_application"
	unknownHost := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	knownHost := tftypes.NewValue(tftypes.String, "https://127.0.0.1:1")
	unknownFieldManager := map[string]tftypes.Value{"host": knownHost, "field_manager": unknownHost}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	app := map[string]tftypes.Value{
		"namespace": str("demo"), "name": str("web"), "package_name": str("demo-app"), "package_version": str("v1.0.0"),
	}
	for _, shortcuts := range []string{"on", "off"} {
		for _, tc := range []struct {
			name     string
			provider map[string]tftypes.Value
			allowed  bool
			defers   bool
		}{
			{"connection unknown, deferral allowed", map[string]tftypes.Value{"host": unknownHost}, true, true},
			{"another argument unknown, deferral allowed", unknownFieldManager, true, true},
			{"connection unknown, deferral not allowed", map[string]tftypes.Value{"host": unknownHost}, false, false},
			{"wholly known, deferral allowed", map[string]tftypes.Value{"host": knownHost}, true, false},
		} {
			t.Run("shortcuts "+shortcuts+"/"+tc.name, func(t *testing.T) {
				t.Setenv(protocol.EnvVar, map[string]string{"on": "", "off": "off"}[shortcuts])
				ctx := context.Background()
				s := ProtocolServer("test")()
				schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
				if err != nil {
					t.Fatal(err)
				}
				conf, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
					Config:             protoObject(t, schemas.Provider.ValueType(), tc.provider),
					ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{DeferralAllowed: tc.allowed},
				})
				if err != nil || hasErrors(t, "ConfigureProvider", conf.Diagnostics) {
					t.Fatal(err)
				}
				appType := schemas.ResourceSchemas[res].ValueType()
				cfg := protoObject(t, appType, app)
				// The state as an apply leaves it: the defaults in place, so
				// that the unchanged-plan shortcut would answer it.
				stateAttrs := map[string]tftypes.Value{
					"immutable_field_change": str("error"), "wait_for": str("ConfigurationApplied"),
					"allow_destructive_settings_switch": tftypes.NewValue(tftypes.Bool, false), "wait": tftypes.NewValue(tftypes.Bool, true),
				}
				for k, v := range app {
					stateAttrs[k] = v
				}
				state := protoObject(t, appType, stateAttrs)

				create, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
					TypeName: res, PriorState: protoObject(t, appType, nil), ProposedNewState: cfg, Config: cfg,
					ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: tc.allowed},
				})
				if err != nil {
					t.Fatal(err)
				}
				unchanged, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
					TypeName: res, PriorState: state, ProposedNewState: state, Config: cfg,
					ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: tc.allowed},
				})
				if err != nil {
					t.Fatal(err)
				}
				read, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
					TypeName: res, CurrentState: state,
					ClientCapabilities: &tfprotov6.ReadResourceClientCapabilities{DeferralAllowed: tc.allowed},
				})
				if err != nil {
					t.Fatal(err)
				}
				dsRead, err := s.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{
					TypeName: ds, Config: protoObject(t, schemas.DataSourceSchemas[ds].ValueType(), map[string]tftypes.Value{"package_name": str("demo-app")}),
					ClientCapabilities: &tfprotov6.ReadDataSourceClientCapabilities{DeferralAllowed: tc.allowed},
				})
				if err != nil {
					t.Fatal(err)
				}
				open, err := s.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{
					TypeName: eph, Config: protoObject(t, schemas.EphemeralResourceSchemas[eph].ValueType(), map[string]tftypes.Value{"namespace": str("demo"), "name": str("web")}),
					ClientCapabilities: &tfprotov6.OpenEphemeralResourceClientCapabilities{DeferralAllowed: tc.allowed},
				})
				if err != nil {
					t.Fatal(err)
				}

				deferrals := map[string]*tfprotov6.Deferred{
					"create plan": create.Deferred, "unchanged plan": unchanged.Deferred, "refresh": read.Deferred,
					"data source": dsRead.Deferred, "ephemeral": open.Deferred,
				}
				for call, d := range deferrals {
					switch {
					case tc.defers && (d == nil || d.Reason != tfprotov6.DeferredReasonProviderConfigUnknown):
						t.Errorf("%s: deferred %v, want reason provider configuration unknown", call, d)
					case !tc.defers && d != nil:
						t.Errorf("%s: deferred %v, want no deferral", call, d)
					}
				}
				if tc.defers {
					for call, diags := range map[string][]*tfprotov6.Diagnostic{
						"create plan": create.Diagnostics, "unchanged plan": unchanged.Diagnostics, "refresh": read.Diagnostics,
						"data source": dsRead.Diagnostics, "ephemeral": open.Diagnostics,
					} {
						if len(diags) > 0 {
							t.Errorf("%s deferred with diagnostics %v", call, diagTexts(diags))
						}
					}
					if string(read.NewState.MsgPack) != string(state.MsgPack) {
						t.Error("deferred refresh: the state changed")
					}
					for call, v := range map[string]*tfprotov6.DynamicValue{"data source": dsRead.State, "ephemeral": open.Result} {
						if v == nil {
							t.Errorf("deferred %s: no value", call)
							continue
						}
						typ := schemas.DataSourceSchemas[ds].ValueType()
						if call == "ephemeral" {
							typ = schemas.EphemeralResourceSchemas[eph].ValueType()
						}
						if got, err := v.Unmarshal(typ); err != nil || got.IsKnown() {
							t.Errorf("deferred %s: value %v (%v), want unknown, as the framework's own deferral answers", call, got, err)
						}
					}
					return
				}
				if tc.allowed { // wholly known: nothing more to check here
					return
				}
				if !hasWarning(create.Diagnostics, "Settings not checked at plan: provider configuration unknown") {
					t.Errorf("create plan: diagnostics %v, want the warning of unchecked settings", diagTexts(create.Diagnostics))
				}
				if hasErrors(t, "unchanged plan", unchanged.Diagnostics) {
					t.Error("unchanged plan failed")
				}
				if !hasWarning(read.Diagnostics, "Application not refreshed: provider configuration unknown") ||
					string(read.NewState.MsgPack) != string(state.MsgPack) {
					t.Errorf("refresh: diagnostics %v, want the prior state kept with a warning", diagTexts(read.Diagnostics))
				}
				for call, diags := range map[string][]*tfprotov6.Diagnostic{"data source": dsRead.Diagnostics, "ephemeral": open.Diagnostics} {
					if !hasSummary(diags, "Provider configuration unknown at plan") || !strings.Contains(diagTexts(diags)[0], "depends_on") {
						t.Errorf("%s: diagnostics %v, want an error naming depends_on", call, diagTexts(diags))
					}
				}
			})
		}
	}
}

func hasWarning(diags []*tfprotov6.Diagnostic, summary string) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning && d.Summary == summary {
			return true
		}
	}
	return false
}
