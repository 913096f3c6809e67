package provider

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// The plan shortcut answers an unchanged plan exactly as the framework does,
// and leaves every other plan to the framework.
func TestPlanShortcut_AnswersUnchangedPlansAsTheFramework(t *testing.T) {
	ctx := context.Background()
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
		{name: "state without identity", prior: state, proposed: state, config: configOf(state), noIdentity: true},
		{name: "update DP has not applied", prior: state, proposed: state, config: configOf(state), pending: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &tfprotov6.PlanResourceChangeRequest{
				TypeName:         applicationTypeName,
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
			got, ok := planUnchanged(ctx, req)
			if ok != tt.wantShortcut {
				t.Fatalf("shortcut taken = %v, want %v", ok, tt.wantShortcut)
			}
			if !ok {
				return
			}
			want, err := providerserver.NewProtocol6(New("test")())().PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			assertSamePlan(t, got, want)
		})
	}
}

// The shortcut knows every default of the schema: only top-level string and
// bool defaults exist, and nested attributes have none.
func TestPlanShortcut_KnowsEveryDefault(t *testing.T) {
	ctx := context.Background()
	info := applicationSchemaInfo(ctx)
	if info.err != nil {
		t.Fatal(info.err)
	}
	want := map[string]tftypes.Value{
		"immutable_field_change":            tftypes.NewValue(tftypes.String, immutableModeError),
		"allow_destructive_settings_switch": tftypes.NewValue(tftypes.Bool, false),
		"wait":                              tftypes.NewValue(tftypes.Bool, true),
		"wait_for":                          tftypes.NewValue(tftypes.String, "ConfigurationApplied"),
	}
	if len(info.defaults) != len(want) {
		t.Fatalf("defaults %v, want %v", info.defaults, want)
	}
	for k, v := range want {
		if !info.defaults[k].Equal(v) {
			t.Errorf("default of %s = %v, want %v", k, info.defaults[k], v)
		}
	}
	var nested func(prefix string, attrs map[string]schema.Attribute)
	nested = func(prefix string, attrs map[string]schema.Attribute) {
		for name, a := range attrs {
			if prefix != "" && hasDefault(a) {
				t.Errorf("nested attribute %s%s has a default the shortcut does not check", prefix, name)
			}
			switch n := a.(type) {
			case schema.SingleNestedAttribute:
				nested(prefix+name+".", n.Attributes)
			case schema.ListNestedAttribute:
				nested(prefix+name+"[*].", n.NestedObject.Attributes)
			}
		}
	}
	nested("", info.schema.Attributes)
	for name, b := range info.schema.Blocks {
		if sb, ok := b.(schema.SingleNestedBlock); ok {
			nested(name+".", sb.Attributes)
		}
	}

	unsupported := schemaInfoOf(ctx, schema.Schema{Attributes: map[string]schema.Attribute{
		"n": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1)},
	}})
	if unsupported.err == nil {
		t.Fatal("an int64 default must disable the shortcut")
	}
}

// configuredProtocolServer is the provider's protocol server configured for
// the test control plane.
func configuredProtocolServer(t *testing.T, kubeconfig string) *protocolServer {
	t.Helper()
	ctx := context.Background()
	s, ok := ProtocolServer("test")().(*protocolServer)
	if !ok {
		t.Fatal("ProtocolServer does not return *protocolServer")
	}
	sch, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := sch.Provider.ValueType()
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.(tftypes.Object).AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["config_path"] = tftypes.NewValue(tftypes.String, kubeconfig)
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &cfg})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
	return s
}

// The create shortcut plans a new Application exactly as the framework does,
// and leaves plans with diagnostics to the framework.
func TestPlanShortcut_PlansCreatesAsTheFramework(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane (TF_ACC=1)")
	}
	ctx := context.Background()
	e := newAppEnv(t)
	s := configuredProtocolServer(t, e.cp.KubeconfigPath())
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
		{name: "invalid settings", config: base(map[string]any{"replicas": 0})},
		{name: "unpublished version", config: func() applicationModel {
			m := base(map[string]any{"replicas": 2})
			m.PackageVersion = types.StringValue("v9.9.9")
			return m
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := encodeModel(t, tt.config)
			null, err := tfprotov6.NewDynamicValue(applicationSchemaInfo(ctx).typ, tftypes.NewValue(applicationSchemaInfo(ctx).typ, nil))
			if err != nil {
				t.Fatal(err)
			}
			req := &tfprotov6.PlanResourceChangeRequest{
				TypeName: applicationTypeName, PriorState: &null, ProposedNewState: cfg, Config: cfg,
			}
			got, ok := s.planCreate(ctx, req)
			if ok != tt.wantShortcut {
				t.Fatalf("shortcut taken = %v, want %v", ok, tt.wantShortcut)
			}
			if !ok {
				return
			}
			want, err := s.ProviderServer.PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			assertSamePlan(t, got, want)
		})
	}
}

// assertSamePlan fails unless the shortcut's plan is the framework's: the
// same planned state, private data and identity, and no diagnostics,
// replacements or deferral on the framework's side.
func assertSamePlan(t *testing.T, got, want *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	if len(want.Diagnostics) > 0 || len(want.RequiresReplace) > 0 || want.Deferred != nil {
		t.Fatalf("framework plan has diagnostics %v, replacements %v, deferral %v", want.Diagnostics, want.RequiresReplace, want.Deferred)
	}
	if g, w := decodeModel(t, got.PlannedState), decodeModel(t, want.PlannedState); !g.Equal(w) {
		t.Fatalf("planned state differs from the framework's:\n got  %v\n want %v", g, w)
	}
	if string(got.PlannedPrivate) != string(want.PlannedPrivate) {
		t.Fatalf("planned private %q, framework %q", got.PlannedPrivate, want.PlannedPrivate)
	}
	typ := applicationSchemaInfo(context.Background()).identity
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

// The plan shortcuts assume every plan modifier of the schema acts only on
// an unknown or changed value with a prior state (UseStateForUnknown,
// RequiresReplace): a new modifier must be checked against them first.
func TestPlanShortcut_KnowsEveryPlanModifier(t *testing.T) {
	ctx := context.Background()
	info := applicationSchemaInfo(ctx)
	want := map[string][]string{
		"id":           {stringplanmodifier.UseStateForUnknown().Description(ctx)},
		"name":         {stringplanmodifier.RequiresReplace().Description(ctx)},
		"namespace":    {stringplanmodifier.RequiresReplace().Description(ctx)},
		"package_name": {stringplanmodifier.RequiresReplace().Description(ctx)},
	}
	got := map[string][]string{}
	for name, a := range info.schema.Attributes {
		v := reflect.ValueOf(a)
		f := v.FieldByName("PlanModifiers")
		if !f.IsValid() || f.Len() == 0 {
			continue
		}
		for i := range f.Len() {
			m, ok := f.Index(i).Interface().(interface{ Description(context.Context) string })
			if !ok {
				t.Fatalf("plan modifier %d of %s has no description", i, name)
			}
			got[name] = append(got[name], m.Description(ctx))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan modifiers changed:\n got  %v\n want %v\ncheck planUnchanged and planCreate before updating this test", got, want)
	}
	for name, b := range info.schema.Blocks {
		if sb, ok := b.(schema.SingleNestedBlock); ok && len(sb.PlanModifiers) > 0 {
			t.Fatalf("block %s has plan modifiers the shortcuts do not run", name)
		}
	}
	// Nested attributes and block attributes: the shortcuts run none.
	var nested func(prefix string, attrs map[string]schema.Attribute)
	nested = func(prefix string, attrs map[string]schema.Attribute) {
		for name, a := range attrs {
			if prefix != "" {
				if f := reflect.ValueOf(a).FieldByName("PlanModifiers"); f.IsValid() && f.Len() > 0 {
					t.Errorf("nested attribute %s%s has plan modifiers the shortcuts do not run", prefix, name)
				}
			}
			switch n := a.(type) {
			case schema.SingleNestedAttribute:
				nested(prefix+name+".", n.Attributes)
			case schema.ListNestedAttribute:
				nested(prefix+name+"[*].", n.NestedObject.Attributes)
			}
		}
	}
	nested("", info.schema.Attributes)
	for name, b := range info.schema.Blocks {
		if sb, ok := b.(schema.SingleNestedBlock); ok {
			nested(name+".", sb.Attributes)
		}
	}
}

// The shortcuts answer for a configured provider only and know of no
// deferral: Configure must never defer, also with an unknown configuration.
func TestShortcuts_ProviderNeverDefers(t *testing.T) {
	ctx := context.Background()
	p := &DeckhouseProvider{version: "test"}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["host"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{
		Config:             tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, attrs)},
		ClientCapabilities: provider.ConfigureProviderClientCapabilities{DeferralAllowed: true},
	}, &resp)
	if resp.Deferred != nil {
		t.Fatal("Configure deferred: the protocol shortcuts do not handle a provider deferral")
	}
}
