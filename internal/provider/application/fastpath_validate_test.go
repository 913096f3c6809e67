package application

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// The validation shortcut answers a configuration the schema's rules find
// nothing in, with the resource's own findings (ValidateConfig), as the
// framework does, and leaves the schema's findings to the framework.
func TestValidateShortcut_AgreesWithTheFramework(t *testing.T) {
	ctx := context.Background()
	s := newServers(t, "", "")
	with := func(f func(m *applicationModel)) applicationModel {
		m := configOf(appState())
		f(&m)
		return m
	}
	withTimeout := func(create string) timeouts.Value {
		return timeouts.Value{Object: types.ObjectValueMust(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
			map[string]attr.Value{"create": types.StringValue(create), "update": types.StringNull(), "delete": types.StringNull()})}
	}
	tests := []struct {
		name             string
		config           applicationModel
		writeOnlyAllowed bool
		valid            bool
		resourceFinds    bool // ValidateConfig finds something, the schema nothing
		framework        bool // a valid configuration the shortcut leaves to the framework
	}{
		{name: "typical", config: configOf(appState()), valid: true},
		{name: "every optional argument", config: with(func(m *applicationModel) {
			m.Maintenance = types.StringValue("NoResourceReconciliation")
			m.ImmutableFieldChange = types.StringValue(immutableModeReplace)
			m.Timeouts = withTimeout("90s")
			m.WaitFor = types.StringValue("Ready")
			m.FieldManager = types.StringValue("team-a")
			m.SensitiveSettings = convert.ToDynamic(map[string]any{"password": "s3cret"})
		}), writeOnlyAllowed: true, valid: true},
		{name: "unknown name", config: with(func(m *applicationModel) { m.Name = types.StringUnknown() }), valid: true},
		{name: "name too long", config: with(func(m *applicationModel) { m.Name = types.StringValue("a-name-longer-than-24-chars") })},
		{name: "empty namespace", config: with(func(m *applicationModel) { m.Namespace = types.StringValue("") })},
		{name: "unknown maintenance mode", config: with(func(m *applicationModel) { m.Maintenance = types.StringValue("Off") })},
		{name: "bad immutable_field_change", config: with(func(m *applicationModel) { m.ImmutableFieldChange = types.StringValue("ignore") })},
		{name: "bad timeout", config: with(func(m *applicationModel) { m.Timeouts = withTimeout("soon") })},
		{name: "zero timeout", config: with(func(m *applicationModel) { m.Timeouts = withTimeout("0s") }), resourceFinds: true},
		{name: "name not a DNS label", config: with(func(m *applicationModel) { m.Name = types.StringValue("Demo_App") })},
		{name: "unknown wait_for", config: with(func(m *applicationModel) { m.WaitFor = types.StringValue("Installed") })},
		{name: "empty field manager", config: with(func(m *applicationModel) { m.FieldManager = types.StringValue("") })},
		{name: "sensitive settings without write-only support", config: with(func(m *applicationModel) {
			m.SensitiveSettings = convert.ToDynamic(map[string]any{"password": "s3cret"})
		})},
		{name: "read-only attribute set", config: with(func(m *applicationModel) { m.EffectiveSettings = convert.ToJSONString(map[string]any{"a": 1}) })},
		{name: "required attribute null", config: with(func(m *applicationModel) { m.PackageVersion = types.StringNull() })},
		{name: "update and resource_requests set", config: with(func(m *applicationModel) {
			m.Update, m.ResourceRequests = sampleUpdate(), sampleResourceRequests()
		}), valid: true, framework: true},
		{name: "bad update mode", config: with(func(m *applicationModel) { m.Update = updateWith("mode", types.StringValue("Sometimes")) })},
		{name: "replicas of a DaemonSet", config: with(func(m *applicationModel) {
			m.ResourceRequests = requestsOf(request("DaemonSet", "agent", types.Int64Value(1)))
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &tfprotov6.ValidateResourceConfigRequest{
				TypeName: TypeName, Config: encodeModel(t, tt.config),
				ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: tt.writeOnlyAllowed},
			}
			want, err := s.framework.ValidateResourceConfig(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if frameworkValid := len(want.Diagnostics) == 0; frameworkValid != tt.valid {
				t.Fatalf("framework finds the configuration valid = %v (%v), the test expects %v", frameworkValid, want.Diagnostics, tt.valid)
			}
			got, err := s.shortcut.ValidateResourceConfig(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			wantAnswered := (tt.valid && !tt.framework) || tt.resourceFinds
			if answered := s.answered(); answered != wantAnswered {
				t.Fatalf("shortcut answered = %v, want %v (framework: %v)", answered, wantAnswered, want.Diagnostics)
			}
			if !reflect.DeepEqual(got.Diagnostics, want.Diagnostics) {
				t.Fatalf("diagnostics %v, framework %v", got.Diagnostics, want.Diagnostics)
			}
		})
	}
}
