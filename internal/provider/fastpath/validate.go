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
		if t := s.target(req.TypeName); t != nil {
			if resp, ok := s.validate(ctx, t, req); ok {
				tflog.Trace(ctx, "validation of a resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
				return resp, nil
			}
		}
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

// errUnsupportedValidation marks a schema with validation the validation
// shortcut does not run.
var errUnsupportedValidation = errors.New("validation not supported by the validation shortcut")

// validate answers the validation of a configuration the schema's rules
// find nothing in (schemaSilent), without a resource method run before that
// is known: then the resource's part of the framework's validation runs
// (validateResource: Configure with the provider's data, nil before the
// provider is configured, its ConfigValidators and ValidateConfig), and the
// answer is their diagnostics. A configuration the schema's rules find
// something in goes to the framework, which reports it.
func (s *server) validate(ctx context.Context, t *target, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, bool) {
	info := t.info
	if info.validateErr != nil || req.Config == nil || len(req.Config.JSON) > 0 {
		return nil, false
	}
	cfgVal, err := req.Config.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	writeOnlyAllowed := req.ClientCapabilities != nil && req.ClientCapabilities.WriteOnlyAttributesAllowed
	config := tfsdk.Config{Schema: info.schema, Raw: cfgVal}
	if !schemaSilent(ctx, info, config, writeOnlyAllowed) {
		return nil, false
	}
	diags := validateResource(ctx, t.New(), s.providerData(), resource.ValidateConfigRequest{
		Config: config, ClientCapabilities: resource.ValidateConfigClientCapabilities{WriteOnlyAttributesAllowed: writeOnlyAllowed},
	})
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoDiagnostics(ctx, diags)}, true
}

// schemaSilent reports whether the framework's validation of config by the
// schema finds nothing: read-only attributes unset, required ones set,
// write-only values only for clients that allow them, no deprecated
// attribute used (attributeSilent), and every string validator of the
// top-level attributes and of the single nested blocks (the timeouts block of
// terraform-plugin-framework-timeouts) silent. checkValidation keeps the
// schema within what this covers.
func schemaSilent(ctx context.Context, info *schemaInfo, config tfsdk.Config, writeOnlyAllowed bool) bool {
	var attrs map[string]tftypes.Value
	if config.Raw.As(&attrs) != nil {
		return false
	}
	for name, a := range info.schema.Attributes {
		v, ok := attrs[name]
		if !ok || !attributeValid(ctx, path.Root(name), a, v, config, writeOnlyAllowed) {
			return false
		}
	}
	for name, b := range info.schema.Blocks {
		v, present := attrs[name]
		if !present || !blockSilent(ctx, name, b, v, config, writeOnlyAllowed) {
			return false
		}
	}
	return true
}

// blockSilent reports whether the schema's validation finds nothing in the
// value v of block b: a single nested block, null or with silent attributes.
func blockSilent(ctx context.Context, name string, b schema.Block, v tftypes.Value, config tfsdk.Config, writeOnlyAllowed bool) bool {
	sb, ok := b.(schema.SingleNestedBlock)
	switch {
	case !ok || !v.IsKnown():
		return false
	case v.IsNull():
		return true
	}
	var nested map[string]tftypes.Value
	if v.As(&nested) != nil {
		return false
	}
	for n, a := range sb.Attributes {
		nv, ok := nested[n]
		if !ok || !attributeValid(ctx, path.Root(name).AtName(n), a, nv, config, writeOnlyAllowed) {
			return false
		}
	}
	return true
}

// attributeValid reports whether the schema's validation finds nothing in
// the value v of attribute a at p: its rules (attributeSilent), then its
// string validators.
func attributeValid(ctx context.Context, p path.Path, a schema.Attribute, v tftypes.Value, config tfsdk.Config, writeOnlyAllowed bool) bool {
	if !attributeSilent(a, v, writeOnlyAllowed) {
		return false
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
	for _, sv := range sa.Validators {
		var vresp validator.StringResponse
		sv.ValidateString(ctx, vreq, &vresp)
		if len(vresp.Diagnostics) > 0 {
			return false
		}
	}
	return true
}

// checkValidation reports validation schemaSilent does not run: validators
// on anything but strings, nested attributes a configuration can set, and
// blocks other than single nested blocks of plain string attributes.
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
		if _, ok := a.(schema.NestedAttribute); ok {
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
