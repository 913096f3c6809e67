package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func (s *protocolServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if req != nil && req.TypeName == applicationTypeName && configValid(ctx, req) {
		return &tfprotov6.ValidateResourceConfigResponse{}, nil
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

// configValid runs the framework's validation of a deckhouse_application
// configuration on the top-level attributes (the schema has no nested
// validators, see schemaInfoOf) and reports whether it finds nothing to say:
// read-only attributes unset, required ones set, write-only values only for
// clients that allow them, no deprecated attribute used, the string
// validators and the resource's ValidateConfig silent. Any finding goes to
// the framework, which reports it.
func configValid(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) bool {
	info := applicationSchemaInfo(ctx)
	if info.err != nil || info.validateErr != nil || req.Config == nil || len(req.Config.JSON) > 0 {
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
	for name, a := range info.schema.Attributes {
		v, ok := attrs[name]
		if !ok {
			return false
		}
		null, unknown := v.IsNull(), !v.IsKnown()
		switch {
		case a.IsComputed() && !a.IsOptional() && !null,
			a.IsRequired() && null,
			a.IsWriteOnly() && !null && !writeOnlyAllowed,
			a.GetDeprecationMessage() != "" && !null && !unknown:
			return false
		}
		sa, ok := a.(schema.StringAttribute)
		if !ok || len(sa.Validators) == 0 {
			continue
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
			Path: path.Root(name), PathExpression: path.MatchRoot(name), Config: config, ConfigValue: str,
			ClientCapabilities: validator.ValidateSchemaClientCapabilities{WriteOnlyAttributesAllowed: writeOnlyAllowed},
		}
		for _, v := range sa.Validators {
			var vresp validator.StringResponse
			v.ValidateString(ctx, vreq, &vresp)
			if len(vresp.Diagnostics) > 0 {
				return false
			}
		}
	}
	var vresp resource.ValidateConfigResponse
	(&ApplicationResource{}).ValidateConfig(ctx, resource.ValidateConfigRequest{
		Config: config, ClientCapabilities: resource.ValidateConfigClientCapabilities{WriteOnlyAttributesAllowed: writeOnlyAllowed},
	}, &vresp)
	return len(vresp.Diagnostics) == 0
}

// checkValidation reports validation configValid does not run: validators
// on anything but a top-level string attribute, and validators, deprecations
// or required or computed attributes inside nested attributes and blocks.
func checkValidation(s schema.Schema) error {
	for _, a := range s.Attributes {
		if _, ok := a.(schema.StringAttribute); !ok && hasValidators(a) {
			return errUnsupportedValidation
		}
		if n, ok := a.(schema.SingleNestedAttribute); ok {
			if len(n.Validators) > 0 || !nestedPlain(n.Attributes, true) {
				return errUnsupportedValidation
			}
		} else if _, ok := a.(schema.NestedAttribute); ok {
			return errUnsupportedValidation
		}
	}
	for _, b := range s.Blocks {
		sb, ok := b.(schema.SingleNestedBlock)
		if !ok || len(sb.Validators) > 0 || len(sb.Blocks) > 0 || sb.DeprecationMessage != "" || !nestedPlain(sb.Attributes, false) {
			return errUnsupportedValidation
		}
	}
	return nil
}

// nestedPlain reports whether nested attributes have no validators, no
// deprecation, nothing required, and (unless computedParent) nothing computed.
func nestedPlain(attrs map[string]schema.Attribute, computedParent bool) bool {
	for _, a := range attrs {
		if hasValidators(a) || a.GetDeprecationMessage() != "" || a.IsRequired() || (a.IsComputed() && !computedParent) {
			return false
		}
		if _, ok := a.(schema.NestedAttribute); ok {
			n, single := a.(schema.SingleNestedAttribute)
			if !single || !nestedPlain(n.Attributes, computedParent) {
				return false
			}
		}
	}
	return true
}
