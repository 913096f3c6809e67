package application

import (
	"os"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// The plan shortcut answers an unchanged plan exactly as the framework does,
// whether or not the client sends an identity, and leaves every other plan
// to the framework.
func TestPlanShortcut_AnswersUnchangedPlansAsTheFramework(t *testing.T) {
	state := appState()
	replaceMode := state
	replaceMode.ImmutableFieldChange = types.StringValue(immutableModeReplace)
	changed := state
	changed.Settings = convert.ToDynamic(map[string]any{"replicas": 3})
	withSensitive := state
	withSensitive.SensitiveSettings = convert.ToDynamic(map[string]any{"password": "s3cret"})
	private := []byte(`{"sensitive_paths":"W10="}`)

	tests := []struct {
		name            string
		prior, proposed applicationModel
		config          applicationModel
		noIdentity      bool
		pending         bool
		wantShortcut    bool
	}{
		{name: "unchanged, defaults left out", prior: state, proposed: state, config: configOf(state), wantShortcut: true},
		{name: "unchanged, non-default mode configured", prior: replaceMode, proposed: replaceMode,
			config: func() applicationModel {
				c := configOf(replaceMode)
				c.ImmutableFieldChange = types.StringValue(immutableModeReplace)
				return c
			}(), wantShortcut: true},
		{name: "default mode restored by removing the argument", prior: replaceMode, proposed: replaceMode, config: configOf(replaceMode)},
		{name: "mode unknown in the configuration", prior: state, proposed: state,
			config: func() applicationModel {
				c := configOf(state)
				c.ImmutableFieldChange = types.StringUnknown()
				return c
			}(), wantShortcut: true},
		{name: "settings changed", prior: state, proposed: changed, config: configOf(changed)},
		{name: "sensitive settings configured", prior: state, proposed: withSensitive, config: configOf(withSensitive)},
		{name: "unchanged, client without identity", prior: state, proposed: state, config: configOf(state), noIdentity: true, wantShortcut: true},
		{name: "settings changed, client without identity", prior: state, proposed: changed, config: configOf(changed), noIdentity: true},
		{name: "update DP has not applied", prior: state, proposed: state, config: configOf(state), pending: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &tfprotov6.PlanResourceChangeRequest{
				TypeName:         TypeName,
				PriorState:       encodeModel(t, tt.prior),
				ProposedNewState: encodeModel(t, tt.proposed),
				Config:           encodeModel(t, tt.config),
				PriorPrivate:     private,
			}
			if tt.pending {
				req.PriorPrivate = []byte(`{"sensitive_paths":"W10=","apply_pending":"dHJ1ZQ=="}`)
			}
			if !tt.noIdentity {
				req.PriorIdentity = encodeIdentity(t, "demo", "app")
			}
			s := newServers(t, "", "")
			if got, want, ok := compare(t, s, tt.wantShortcut, req, tfprotov6.ProviderServer.PlanResourceChange); ok {
				assertSamePlan(t, got, want)
			}
		})
	}
}

// The create shortcut plans a new Application exactly as the framework does,
// diagnostics included.
func TestPlanShortcut_PlansCreatesAsTheFramework(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane (TF_ACC=1)")
	}
	e := newPlanEnv(t)
	s := newServers(t, "", e.cp.KubeconfigPath())
	base := func(settings map[string]any) applicationModel {
		m := configOf(appState())
		m.Namespace = types.StringValue(e.namespace)
		m.PackageName = types.StringValue(e.pkg)
		m.PackageRepositoryName = types.StringValue(e.repository)
		m.Settings = convert.ToDynamic(settings)
		return m
	}
	tests := []struct {
		name         string
		config       applicationModel
		wantShortcut bool
	}{
		{name: "settings with defaults", config: base(map[string]any{"replicas": 2, "domain": "a.example.com"}), wantShortcut: true},
		{name: "no settings", config: func() applicationModel { m := base(nil); m.Settings = types.DynamicNull(); return m }(), wantShortcut: true},
		{name: "repository resolved from the package", config: func() applicationModel {
			m := base(map[string]any{"replicas": 2})
			m.PackageRepositoryName = types.StringNull()
			return m
		}(), wantShortcut: true},
		{name: "arguments with defaults configured", config: func() applicationModel {
			m := base(map[string]any{"replicas": 2})
			m.ImmutableFieldChange = types.StringValue(immutableModeReplace)
			m.Wait = types.BoolValue(false)
			m.AllowDestructiveSettingsSwitch = types.BoolValue(true)
			m.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("a")})
			m.Timeouts = timeouts.Value{Object: types.ObjectValueMust(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
				map[string]attr.Value{"create": types.StringValue("1m"), "update": types.StringNull(), "delete": types.StringNull()})}
			return m
		}(), wantShortcut: true},
		{name: "sensitive settings", config: func() applicationModel {
			m := base(map[string]any{"replicas": 2})
			m.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"password": "s3cret"}})
			return m
		}(), wantShortcut: true},
		{name: "invalid settings", config: base(map[string]any{"replicas": 0}), wantShortcut: true},
		{name: "unpublished version", config: func() applicationModel {
			m := base(map[string]any{"replicas": 2})
			m.PackageVersion = types.StringValue("v9.9.9")
			return m
		}(), wantShortcut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := encodeModel(t, tt.config)
			null, err := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
			if err != nil {
				t.Fatal(err)
			}
			req := &tfprotov6.PlanResourceChangeRequest{
				TypeName: TypeName, PriorState: &null, ProposedNewState: cfg, Config: cfg,
			}
			if got, want, ok := compare(t, s, tt.wantShortcut, req, tfprotov6.ProviderServer.PlanResourceChange); ok {
				assertSamePlan(t, got, want)
			}
		})
	}
}

// assertSamePlan fails unless the shortcut's plan is the framework's: the
// same diagnostics, replacements, deferral, planned state, private data and
// identity.
func assertSamePlan(t *testing.T, got, want *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	if !reflect.DeepEqual(got.Diagnostics, want.Diagnostics) {
		t.Fatalf("diagnostics %v, framework %v", diagSummaries(got.Diagnostics), diagSummaries(want.Diagnostics))
	}
	if !reflect.DeepEqual(got.RequiresReplace, want.RequiresReplace) || !reflect.DeepEqual(got.Deferred, want.Deferred) {
		t.Fatalf("replacements %v, deferral %v; framework %v, %v", got.RequiresReplace, got.Deferred, want.RequiresReplace, want.Deferred)
	}
	if g, w := decodeModel(t, got.PlannedState), decodeModel(t, want.PlannedState); !g.Equal(w) {
		t.Fatalf("planned state differs from the framework's:\n got  %v\n want %v", g, w)
	}
	if string(got.PlannedPrivate) != string(want.PlannedPrivate) {
		t.Fatalf("planned private %q, framework %q", got.PlannedPrivate, want.PlannedPrivate)
	}
	typ := identityType()
	gi, err := got.PlannedIdentity.IdentityData.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	wi, err := want.PlannedIdentity.IdentityData.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !gi.Equal(wi) {
		t.Fatalf("planned identity %v, framework %v", gi, wi)
	}
}
