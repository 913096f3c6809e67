package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// appState is an applied Application as the state holds it.
func appState() applicationModel {
	settings := toDynamic(map[string]any{"replicas": 2, "ingress": map[string]any{"host": "a.example.com"}})
	effective := toDynamic(map[string]any{"replicas": 2, "logLevel": "Info", "ingress": map[string]any{"host": "a.example.com"}})
	return applicationModel{
		ID:                             types.StringValue("demo/app"),
		Name:                           types.StringValue("app"),
		Namespace:                      types.StringValue("demo"),
		PackageName:                    types.StringValue("demo-app"),
		PackageVersion:                 types.StringValue("v1.0.0"),
		PackageRepositoryName:          types.StringValue("demo"),
		ReleaseChannel:                 types.StringNull(),
		Maintenance:                    types.StringNull(),
		Labels:                         types.MapNull(types.StringType),
		Annotations:                    types.MapNull(types.StringType),
		Settings:                       settings,
		SensitiveSettings:              types.DynamicNull(),
		SensitiveSettingsVersion:       types.StringNull(),
		ImmutableFieldChange:           types.StringValue(immutableModeError),
		AllowDestructiveSettingsSwitch: types.BoolValue(false),
		Wait:                           types.BoolValue(true),
		Timeouts: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "update": types.StringType, "delete": types.StringType,
		}),
		EffectiveSettings: effective,
		Status: types.ObjectValueMust(statusAttrTypes, map[string]attr.Value{
			"state": types.StringValue("Ready"), "message": types.StringNull(), "installed_version": types.StringValue("v1.0.0"),
			"configuration_applied": types.ObjectValueMust(conditionAttrTypes, map[string]attr.Value{
				"status": types.StringValue("True"), "reason": types.StringValue("Applied"), "message": types.StringNull(),
			}),
		}),
		LastAppliedSettings: effective,
	}
}

// configOf is the configuration that produced m: computed values null, and
// the attributes with defaults left out.
func configOf(m applicationModel) applicationModel {
	m.ID = types.StringNull()
	m.PackageRepositoryName = types.StringNull()
	m.ImmutableFieldChange = types.StringNull()
	m.AllowDestructiveSettingsSwitch = types.BoolNull()
	m.Wait = types.BoolNull()
	m.EffectiveSettings = types.DynamicNull()
	m.Status = types.ObjectNull(statusAttrTypes)
	m.LastAppliedSettings = types.DynamicNull()
	return m
}

func encodeModel(t *testing.T, m applicationModel) *tfprotov6.DynamicValue {
	t.Helper()
	ctx := context.Background()
	info := applicationSchemaInfo(ctx)
	st := tfsdk.State{Schema: info.schema, Raw: tftypes.NewValue(info.typ, nil)}
	if diags := st.Set(ctx, &m); diags.HasError() {
		t.Fatalf("encode model: %v", diags)
	}
	dv, err := tfprotov6.NewDynamicValue(info.typ, st.Raw)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func encodeIdentity(t *testing.T, namespace, name string) *tfprotov6.ResourceIdentityData {
	t.Helper()
	typ := applicationSchemaInfo(context.Background()).identity
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{
		"namespace": tftypes.NewValue(tftypes.String, namespace),
		"name":      tftypes.NewValue(tftypes.String, name),
	}))
	if err != nil {
		t.Fatal(err)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

func decodeModel(t *testing.T, dv *tfprotov6.DynamicValue) tftypes.Value {
	t.Helper()
	v, err := dv.Unmarshal(applicationSchemaInfo(context.Background()).typ)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The plan shortcut answers an unchanged plan exactly as the framework does,
// and leaves every other plan to the framework.
func TestPlanShortcut_AnswersUnchangedPlansAsTheFramework(t *testing.T) {
	ctx := context.Background()
	state := appState()
	replaceMode := state
	replaceMode.ImmutableFieldChange = types.StringValue(immutableModeReplace)
	changed := state
	changed.Settings = toDynamic(map[string]any{"replicas": 3})
	withSensitive := state
	withSensitive.SensitiveSettings = toDynamic(map[string]any{"password": "s3cret"})
	private := []byte(`{"sensitive_paths":"W10="}`)

	tests := []struct {
		name            string
		prior, proposed applicationModel
		config          applicationModel
		noIdentity      bool
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
			if len(want.Diagnostics) > 0 || len(want.RequiresReplace) > 0 || want.Deferred != nil {
				t.Fatalf("framework plan has diagnostics %v, replacements %v, deferral %v", want.Diagnostics, want.RequiresReplace, want.Deferred)
			}
			if g, w := decodeModel(t, got.PlannedState), decodeModel(t, want.PlannedState); !g.Equal(w) {
				t.Fatalf("planned state differs from the framework's:\n got  %v\n want %v", g, w)
			}
			if string(got.PlannedPrivate) != string(want.PlannedPrivate) {
				t.Fatalf("planned private %s, framework %s", got.PlannedPrivate, want.PlannedPrivate)
			}
			gi, err := got.PlannedIdentity.IdentityData.Unmarshal(applicationSchemaInfo(ctx).identity)
			if err != nil {
				t.Fatal(err)
			}
			wi, err := want.PlannedIdentity.IdentityData.Unmarshal(applicationSchemaInfo(ctx).identity)
			if err != nil {
				t.Fatal(err)
			}
			if !gi.Equal(wi) {
				t.Fatalf("planned identity %v, framework %v", gi, wi)
			}
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
			if n, ok := a.(schema.SingleNestedAttribute); ok {
				nested(prefix+name+".", n.Attributes)
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

func TestPrivateKey_ReadsTheFrameworkEncoding(t *testing.T) {
	tests := []struct {
		name    string
		private string
		want    string
		ok      bool
	}{
		{name: "empty", private: "", want: "", ok: true},
		{name: "key present", private: `{"sensitive_paths":"W1siYSJdXQ=="}`, want: `[["a"]]`, ok: true},
		{name: "key absent", private: `{".frameworkKey":"e30="}`, want: "", ok: true},
		{name: "not JSON", private: `{`, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := privateKey([]byte(tt.private), privateSensitivePaths)
			if ok != tt.ok || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
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
		m.Settings = toDynamic(settings)
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
			m.Timeouts = types.ObjectValueMust(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
				map[string]attr.Value{"create": types.StringValue("1m"), "update": types.StringNull(), "delete": types.StringNull()})
			return m
		}(), wantShortcut: true},
		{name: "sensitive settings", config: func() applicationModel {
			m := base(map[string]any{"replicas": 2})
			m.SensitiveSettings = toDynamic(map[string]any{"auth": map[string]any{"password": "s3cret"}})
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
			if len(want.Diagnostics) > 0 || len(want.RequiresReplace) > 0 {
				t.Fatalf("framework plan has diagnostics %v, replacements %v", want.Diagnostics, want.RequiresReplace)
			}
			if g, w := decodeModel(t, got.PlannedState), decodeModel(t, want.PlannedState); !g.Equal(w) {
				t.Fatalf("planned state differs from the framework's:\n got  %v\n want %v", g, w)
			}
			if len(got.PlannedPrivate) != len(want.PlannedPrivate) {
				t.Fatalf("planned private %q, framework %q", got.PlannedPrivate, want.PlannedPrivate)
			}
			gi, err := got.PlannedIdentity.IdentityData.Unmarshal(applicationSchemaInfo(ctx).identity)
			if err != nil {
				t.Fatal(err)
			}
			wi, err := want.PlannedIdentity.IdentityData.Unmarshal(applicationSchemaInfo(ctx).identity)
			if err != nil {
				t.Fatal(err)
			}
			if !gi.Equal(wi) {
				t.Fatalf("planned identity %v, framework %v", gi, wi)
			}
		})
	}
}

// The validation shortcut finds a configuration valid exactly when the
// framework has nothing to say about it.
func TestValidateShortcut_AgreesWithTheFramework(t *testing.T) {
	ctx := context.Background()
	fw := providerserver.NewProtocol6(New("test")())()
	with := func(f func(m *applicationModel)) applicationModel {
		m := configOf(appState())
		f(&m)
		return m
	}
	timeouts := func(create string) types.Object {
		return types.ObjectValueMust(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
			map[string]attr.Value{"create": types.StringValue(create), "update": types.StringNull(), "delete": types.StringNull()})
	}
	tests := []struct {
		name             string
		config           applicationModel
		writeOnlyAllowed bool
		valid            bool
	}{
		{name: "typical", config: configOf(appState()), valid: true},
		{name: "every optional argument", config: with(func(m *applicationModel) {
			m.Maintenance = types.StringValue("NoResourceReconciliation")
			m.ImmutableFieldChange = types.StringValue(immutableModeReplace)
			m.Timeouts = timeouts("90s")
			m.SensitiveSettings = toDynamic(map[string]any{"password": "s3cret"})
		}), writeOnlyAllowed: true, valid: true},
		{name: "unknown name", config: with(func(m *applicationModel) { m.Name = types.StringUnknown() }), valid: true},
		{name: "name too long", config: with(func(m *applicationModel) { m.Name = types.StringValue("a-name-longer-than-24-chars") })},
		{name: "empty namespace", config: with(func(m *applicationModel) { m.Namespace = types.StringValue("") })},
		{name: "unknown maintenance mode", config: with(func(m *applicationModel) { m.Maintenance = types.StringValue("Off") })},
		{name: "bad immutable_field_change", config: with(func(m *applicationModel) { m.ImmutableFieldChange = types.StringValue("ignore") })},
		{name: "bad timeout", config: with(func(m *applicationModel) { m.Timeouts = timeouts("soon") })},
		{name: "sensitive settings without write-only support", config: with(func(m *applicationModel) {
			m.SensitiveSettings = toDynamic(map[string]any{"password": "s3cret"})
		})},
		{name: "read-only attribute set", config: with(func(m *applicationModel) { m.EffectiveSettings = toDynamic(map[string]any{"a": 1}) })},
		{name: "required attribute null", config: with(func(m *applicationModel) { m.PackageVersion = types.StringNull() })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &tfprotov6.ValidateResourceConfigRequest{
				TypeName: applicationTypeName, Config: encodeModel(t, tt.config),
				ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: tt.writeOnlyAllowed},
			}
			want, err := fw.ValidateResourceConfig(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if frameworkValid := len(want.Diagnostics) == 0; frameworkValid != tt.valid {
				t.Fatalf("framework finds the configuration valid = %v (%v), the test expects %v", frameworkValid, want.Diagnostics, tt.valid)
			}
			if got := configValid(ctx, req); got != tt.valid {
				t.Fatalf("shortcut finds the configuration valid = %v, framework %v (%v)", got, tt.valid, want.Diagnostics)
			}
		})
	}
	if err := applicationSchemaInfo(ctx).validateErr; err != nil {
		t.Fatalf("the schema must stay within what the shortcut validates: %v", err)
	}
}

type anyInt64 struct{}

func (anyInt64) Description(context.Context) string         { return "any" }
func (anyInt64) MarkdownDescription(context.Context) string { return "any" }
func (anyInt64) ValidateInt64(context.Context, validator.Int64Request, *validator.Int64Response) {
}

func TestValidateShortcut_RefusesSchemasItCannotCheck(t *testing.T) {
	str := schema.StringAttribute{Optional: true, Validators: []validator.String{nonEmptyStringValidator{}}}
	tests := []struct {
		name   string
		schema schema.Schema
		ok     bool
	}{
		{name: "top-level string validators", schema: schema.Schema{Attributes: map[string]schema.Attribute{"s": str}}, ok: true},
		{name: "int64 validators", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"n": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{anyInt64{}}}}}},
		{name: "validator in a nested attribute", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"o": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{"s": str}}}}},
		{name: "required attribute in a block", schema: schema.Schema{Blocks: map[string]schema.Block{
			"b": schema.SingleNestedBlock{Attributes: map[string]schema.Attribute{"s": schema.StringAttribute{Required: true}}}}}},
		{name: "list block", schema: schema.Schema{Blocks: map[string]schema.Block{
			"b": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkValidation(tt.schema); (err == nil) != tt.ok {
				t.Fatalf("checkValidation = %v, want ok = %v", err, tt.ok)
			}
		})
	}
}

// The state upgrade shortcut turns a stored state into the value the
// framework gives, and leaves states that do not fit the schema to it.
func TestUpgradeShortcut_DecodesStatesAsTheFramework(t *testing.T) {
	ctx := context.Background()
	stored, err := os.ReadFile(filepath.Join("testdata", "state", "application.json"))
	if err != nil {
		t.Fatal(err)
	}
	var base map[string]any
	if err := json.Unmarshal(stored, &base); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(stored, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dyn := func(value any, typ any) map[string]any { return map[string]any{"value": value, "type": typ} }
	tests := []struct {
		name      string
		state     []byte
		version   int64
		wantShort bool
	}{
		{name: "applied Application", state: stored, wantShort: true},
		{name: "numbers of every kind", state: edit(func(m map[string]any) {
			m["settings"] = dyn(map[string]any{"i": json.Number("7"), "neg": json.Number("-3"), "f": json.Number("0.1"),
				"big": json.Number("123456789012345678901234567890"), "exp": json.Number("1e3"), "tiny": json.Number("1e-400")},
				[]any{"object", map[string]any{"i": "number", "neg": "number", "f": "number", "big": "number", "exp": "number", "tiny": "number"}})
		}), wantShort: true},
		{name: "lists, maps, tuples and typed nulls", state: edit(func(m map[string]any) {
			m["settings"] = dyn(map[string]any{"l": []any{"a", "b"}, "m": map[string]any{"x": true}, "t": []any{json.Number("1"), "s"}, "n": nil},
				[]any{"object", map[string]any{"l": []any{"list", "string"}, "m": []any{"map", "bool"}, "t": []any{"tuple", []any{"number", "string"}}, "n": "string"}})
			m["labels"] = map[string]any{"team": "a", "env": "prod"}
			m["effective_settings"] = nil
		}), wantShort: true},
		{name: "attribute unknown to the schema dropped", state: edit(func(m map[string]any) { m["removed_attribute"] = "x" }), wantShort: true},
		{name: "missing attribute is null", state: edit(func(m map[string]any) { delete(m, "release_channel") }), wantShort: true},
		{name: "wrong type goes to the framework", state: edit(func(m map[string]any) { m["wait"] = "yes" })},
		{name: "dynamic value without its type goes to the framework", state: edit(func(m map[string]any) {
			m["settings"] = map[string]any{"value": map[string]any{}}
		})},
		{name: "older schema version goes to the framework", state: stored, version: 1},
	}
	fw := providerserver.NewProtocol6(New("test")())()
	typ := applicationSchemaInfo(ctx).typ
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &tfprotov6.UpgradeResourceStateRequest{TypeName: applicationTypeName, Version: tt.version, RawState: &tfprotov6.RawState{JSON: tt.state}}
			got, ok := upgradeCurrentState(ctx, req)
			if ok != tt.wantShort {
				t.Fatalf("shortcut taken = %v, want %v", ok, tt.wantShort)
			}
			if !ok {
				return
			}
			want, err := fw.UpgradeResourceState(ctx, req)
			if err != nil || len(want.Diagnostics) > 0 {
				t.Fatalf("framework: %v %v", err, want.Diagnostics)
			}
			g, err := got.UpgradedState.Unmarshal(typ)
			if err != nil {
				t.Fatalf("shortcut state does not decode: %v", err)
			}
			w, err := want.UpgradedState.Unmarshal(typ)
			if err != nil {
				t.Fatal(err)
			}
			if !g.Equal(w) {
				t.Fatalf("upgraded state differs from the framework's:\n got  %v\n want %v", g, w)
			}
		})
	}
}

var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

// FuzzUpgradeShortcut: any stored state either goes to the framework or
// decodes to the value the framework gives; nothing panics.
func FuzzUpgradeShortcut(f *testing.F) {
	stored, err := os.ReadFile(filepath.Join("testdata", "state", "application.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(stored)
	f.Add([]byte(`{"settings":{"value":{"a":1e999},"type":["object",{"a":"number"}]}}`))
	f.Add([]byte(`{"labels":{"a":"b"},"wait":true,"status":null}`))
	ctx := context.Background()
	fw := providerserver.NewProtocol6(New("test")())()
	typ := applicationSchemaInfo(ctx).typ
	f.Fuzz(func(t *testing.T, state []byte) {
		if hugeExponent.Match(state) {
			t.Skip("numbers with huge exponents take both decoders minutes to print")
		}
		req := &tfprotov6.UpgradeResourceStateRequest{TypeName: applicationTypeName, RawState: &tfprotov6.RawState{JSON: state}}
		got, ok := upgradeCurrentState(ctx, req)
		if !ok {
			return
		}
		g, err := got.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatalf("shortcut state does not decode: %v", err)
		}
		want, err := fw.UpgradeResourceState(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Diagnostics) > 0 {
			t.Fatalf("shortcut accepted a state the framework rejects: %v", want.Diagnostics)
		}
		w, err := want.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Equal(w) {
			t.Fatalf("upgraded state differs from the framework's:\n got  %v\n want %v", g, w)
		}
	})
}
