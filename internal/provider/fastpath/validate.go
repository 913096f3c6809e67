package fastpath

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if req != nil && !s.off[shortcutValidate] {
		if t := s.target(req.TypeName); t != nil && configValid(ctx, t, req) {
			tflog.Trace(ctx, "validation of a resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
			return &tfprotov6.ValidateResourceConfigResponse{}, nil
		}
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

// errUnsupportedValidation marks a schema with validation configValid does
// not run.
var errUnsupportedValidation = errors.New("validation not supported by the validation shortcut")

// configValid runs the framework's validation of a resource configuration and reports whether it finds nothing to say: read-only
// attributes unset, required ones set, write-only values only for clients
// that allow them, no deprecated attribute used, every string validator of
// the top-level attributes and of the single nested blocks (the timeouts
// block of terraform-plugin-framework-timeouts) silent, and the resource's
// ValidateConfig silent. Any finding goes to the framework, which reports
// it. checkValidation keeps the schema within what this covers.
func configValid(ctx context.Context, t *target, req *tfprotov6.ValidateResourceConfigRequest) bool {
	info := t.info
	if info.validateErr != nil || req.Config == nil || len(req.Config.JSON) > 0 {
		return false
	}
	cfgVal, err := req.Config.Unmarshal(info.typ)
	if err != nil {
		return false
	}
	var attrs map[string]tftypes.Value
	if cfgVal.As(&attrs) != nil {
		return false
	}
	writeOnlyAllowed := req.ClientCapabilities != nil && req.ClientCapabilities.WriteOnlyAttributesAllowed
	config := tfsdk.Config{Schema: info.schema, Raw: cfgVal}
	strings := func(p path.Path, a schema.Attribute, v tftypes.Value) bool {
		null, unknown := v.IsNull(), !v.IsKnown()
		switch {
		case a.IsComputed() && !a.IsOptional() && !null,
			a.IsRequired() && null,
			a.IsWriteOnly() && !null && !writeOnlyAllowed,
			a.GetDeprecationMessage() != "" && !null && !unknown:
			return false
		}
		if _, nested := a.(schema.NestedAttribute); nested {
			// checkValidation let it in without validators of its own:
			// only a null one has nothing to validate.
			return null
		}
		sa, ok := a.(schema.StringAttribute)
		if !ok || len(sa.Validators) == 0 {
			return true
		}
		sv, err := types.StringType.ValueFromTerraform(ctx, v)
		if err != nil {
			return false
		}
		str, ok := sv.(types.String)
		if !ok {
			return false
		}
		vreq := validator.StringRequest{
			Path: p, PathExpression: p.Expression(), Config: config, ConfigValue: str,
			ClientCapabilities: validator.ValidateSchemaClientCapabilities{WriteOnlyAttributesAllowed: writeOnlyAllowed},
		}
		for _, v := range sa.Validators {
			var vresp validator.StringResponse
			v.ValidateString(ctx, vreq, &vresp)
			if len(vresp.Diagnostics) > 0 {
				return false
			}
		}
		return true
	}
	for name, a := range info.schema.Attributes {
		v, ok := attrs[name]
		if !ok || !strings(path.Root(name), a, v) {
			return false
		}
	}
	for name, b := range info.schema.Blocks {
		sb, ok := b.(schema.SingleNestedBlock)
		v, present := attrs[name]
		if !ok || !present {
			return false
		}
		if v.IsNull() {
			continue
		}
		if !v.IsKnown() {
			return false
		}
		var nested map[string]tftypes.Value
		if v.As(&nested) != nil {
			return false
		}
		for n, a := range sb.Attributes {
			nv, ok := nested[n]
			if !ok || !strings(path.Root(name).AtName(n), a, nv) {
				return false
			}
		}
	}
	var vresp resource.ValidateConfigResponse
	configValidator, ok := t.New().(resource.ResourceWithValidateConfig)
	if !ok {
		return false
	}
	configValidator.ValidateConfig(ctx, resource.ValidateConfigRequest{
		Config: config, ClientCapabilities: resource.ValidateConfigClientCapabilities{WriteOnlyAttributesAllowed: writeOnlyAllowed},
	}, &vresp)
	return len(vresp.Diagnostics) == 0
}

// checkValidation reports validation configValid does not run: validators
// on anything but strings, validators of a nested attribute a configuration
// can set (configValid leaves every configuration that sets one to the
// framework, which validates what is nested), and blocks other than single
// nested blocks of plain string attributes.
// Computed-only attributes are not looked into: a configuration cannot set
// them, so their nested attributes are never validated.
func checkValidation(s schema.Schema) error {
	for _, a := range s.Attributes {
		if a.IsComputed() && !a.IsOptional() {
			continue
		}
		if _, ok := a.(schema.StringAttribute); !ok && hasField(a, "Validators") {
			return errUnsupportedValidation
		}
		if _, ok := a.(schema.NestedAttribute); ok && hasField(a, "Validators") {
			return errUnsupportedValidation
		}
	}
	for _, b := range s.Blocks {
		sb, ok := b.(schema.SingleNestedBlock)
		if !ok || len(sb.Validators) > 0 || len(sb.Blocks) > 0 || sb.DeprecationMessage != "" {
			return errUnsupportedValidation
		}
		for _, a := range sb.Attributes {
			if _, ok := a.(schema.StringAttribute); !ok || a.IsComputed() {
				return errUnsupportedValidation
			}
		}
	}
	return nil
}
