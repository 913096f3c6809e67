package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

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
	withTimeout := func(create string) timeouts.Value {
		return timeouts.Value{Object: types.ObjectValueMust(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
			map[string]attr.Value{"create": types.StringValue(create), "update": types.StringNull(), "delete": types.StringNull()})}
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
		{name: "zero timeout", config: with(func(m *applicationModel) { m.Timeouts = withTimeout("0s") })},
		{name: "name not a DNS label", config: with(func(m *applicationModel) { m.Name = types.StringValue("Demo_App") })},
		{name: "unknown wait_for", config: with(func(m *applicationModel) { m.WaitFor = types.StringValue("Installed") })},
		{name: "empty field manager", config: with(func(m *applicationModel) { m.FieldManager = types.StringValue("") })},
		{name: "sensitive settings without write-only support", config: with(func(m *applicationModel) {
			m.SensitiveSettings = convert.ToDynamic(map[string]any{"password": "s3cret"})
		})},
		{name: "read-only attribute set", config: with(func(m *applicationModel) { m.EffectiveSettings = convert.ToDynamic(map[string]any{"a": 1}) })},
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

func (anyInt64) Description(context.Context) string { return "any" }

func (anyInt64) MarkdownDescription(context.Context) string { return "any" }

func (anyInt64) ValidateInt64(context.Context, validator.Int64Request, *validator.Int64Response) {
}

func TestValidateShortcut_RefusesSchemasItCannotCheck(t *testing.T) {
	str := schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	tests := []struct {
		name   string
		schema schema.Schema
		ok     bool
	}{
		{name: "top-level string validators", schema: schema.Schema{Attributes: map[string]schema.Attribute{"s": str}}, ok: true},
		{name: "string validators in a single nested block", schema: schema.Schema{Blocks: map[string]schema.Block{
			"b": schema.SingleNestedBlock{Attributes: map[string]schema.Attribute{"s": str}}}}, ok: true},
		{name: "nested attributes of a computed attribute", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"o": schema.SingleNestedAttribute{Computed: true, Attributes: map[string]schema.Attribute{"s": schema.StringAttribute{Computed: true}}}}}, ok: true},
		{name: "int64 validators", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"n": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{anyInt64{}}}}}},
		{name: "a nested attribute a configuration sets", schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"o": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{"s": str}}}}},
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
