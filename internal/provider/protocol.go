package provider

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// applicationTypeName is the type name of the deckhouse_application resource.
const applicationTypeName = "deckhouse_application"

// ProtocolServer returns the provider's protocol server: the framework's
// server, with the calls that dominate a plan over many Applications
// answered directly for deckhouse_application.
//
// terraform-plugin-framework spends most of a plan's provider time
// converting values between the protocol and its own types, several times per
// resource and per call, often to return them unchanged. Each shortcut gives
// the answer the framework's pipeline would give, checked by a test that
// sends the same request to both, and hands everything else (every answer
// with a diagnostic, every input it does not recognise) to the framework:
//   - ValidateResourceConfig: configValid (protocol_validate.go);
//   - ReadResource: readUnchanged (protocol_read.go);
//   - PlanResourceChange: planUnchanged and planCreate (protocol_plan.go).
//
// Setting DECKHOUSE_PROVIDER_SHORTCUTS=off serves the framework's server
// alone (for comparisons and as a way out should a shortcut misbehave).
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := &DeckhouseProvider{version: version}
		if !ShortcutsEnabled() {
			return providerserver.NewProtocol6(p)()
		}
		return &protocolServer{ProviderServer: providerserver.NewProtocol6(p)(), provider: p}
	}
}

// ShortcutsEnvVar turns the protocol shortcuts off when set to "off" (or
// "false", "0").
const ShortcutsEnvVar = "DECKHOUSE_PROVIDER_SHORTCUTS"

// ShortcutsEnabled reports whether the protocol shortcuts answer calls.
func ShortcutsEnabled() bool {
	switch strings.ToLower(os.Getenv(ShortcutsEnvVar)) {
	case "off", "false", "0", "no":
		return false
	}
	return true
}

// protocolServer is the framework's protocol server with the shortcuts.
type protocolServer struct {
	tfprotov6.ProviderServer
	provider *DeckhouseProvider
}

// isMsgPackNil reports whether a MessagePack value is nil (a null object).
func isMsgPackNil(b []byte) bool { return len(b) == 1 && b[0] == 0xc0 }

func objectAttributes(v *tfprotov6.DynamicValue, typ tftypes.Type) (map[string]tftypes.Value, error) {
	val, err := v.Unmarshal(typ)
	if err != nil {
		return nil, err
	}
	var attrs map[string]tftypes.Value
	if err := val.As(&attrs); err != nil {
		return nil, err
	}
	return attrs, nil
}

// schemaInfo is what the shortcut needs of the deckhouse_application schema.
type schemaInfo struct {
	schema   schema.Schema
	typ      tftypes.Type
	identity tftypes.Type
	defaults map[string]tftypes.Value // attribute name -> default value
	attrs    map[string]attrInfo      // top-level attributes
	err      error
	// validateErr is set when the schema has validation configValid does
	// not run (see checkValidation).
	validateErr error
}

// attrInfo is what the create shortcut needs of a top-level attribute.
type attrInfo struct {
	computed, writeOnly, hasDefault bool
	// unknownType is the type of the attribute's unknown (and write-only
	// null) value: DynamicPseudoType for dynamic attributes.
	unknownType tftypes.Type
}

var (
	applicationSchemaOnce sync.Once
	applicationSchemaVal  *schemaInfo
)

func applicationSchemaInfo(ctx context.Context) *schemaInfo {
	applicationSchemaOnce.Do(func() {
		var resp resource.SchemaResponse
		r := &ApplicationResource{}
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		applicationSchemaVal = schemaInfoOf(ctx, resp.Schema)
		var idResp resource.IdentitySchemaResponse
		r.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &idResp)
		applicationSchemaVal.identity = idResp.IdentitySchema.Type().TerraformType(ctx)
	})
	return applicationSchemaVal
}

// schemaInfoOf collects the object type and the static defaults of the top
// level attributes. A default the shortcut cannot evaluate disables it.
func schemaInfoOf(ctx context.Context, s schema.Schema) *schemaInfo {
	info := &schemaInfo{schema: s, typ: s.Type().TerraformType(ctx), defaults: map[string]tftypes.Value{}, attrs: map[string]attrInfo{}}
	info.validateErr = checkValidation(s)
	for name, a := range s.Attributes {
		info.attrs[name] = attrInfo{
			computed: a.IsComputed(), writeOnly: a.IsWriteOnly(), hasDefault: hasDefault(a),
			unknownType: a.GetType().TerraformType(ctx),
		}
		var (
			v   tftypes.Value
			err error
		)
		switch a := a.(type) {
		case schema.StringAttribute:
			if a.Default == nil {
				continue
			}
			var resp defaults.StringResponse
			a.Default.DefaultString(ctx, defaults.StringRequest{}, &resp)
			v, err = resp.PlanValue.ToTerraformValue(ctx)
			if resp.Diagnostics.HasError() {
				err = errUnsupportedDefault
			}
		case schema.BoolAttribute:
			if a.Default == nil {
				continue
			}
			var resp defaults.BoolResponse
			a.Default.DefaultBool(ctx, defaults.BoolRequest{}, &resp)
			v, err = resp.PlanValue.ToTerraformValue(ctx)
			if resp.Diagnostics.HasError() {
				err = errUnsupportedDefault
			}
		default:
			if hasDefault(a) {
				err = errUnsupportedDefault
			} else {
				continue
			}
		}
		if err != nil {
			info.err = err
			return info
		}
		info.defaults[name] = v
	}
	return info
}

var (
	errUnsupportedDefault = errors.New("attribute default not supported by the plan shortcut")
)

// hasValidators reports whether a schema attribute sets Validators.
func hasValidators(a schema.Attribute) bool {
	v := reflect.ValueOf(a)
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("Validators")
	return f.IsValid() && f.Kind() == reflect.Slice && f.Len() > 0
}

// hasDefault reports whether a schema attribute sets a Default.
func hasDefault(a schema.Attribute) bool {
	v := reflect.ValueOf(a)
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("Default")
	return f.IsValid() && (f.Kind() == reflect.Interface || f.Kind() == reflect.Pointer) && !f.IsNil()
}
