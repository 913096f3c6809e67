package protocol

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if t := s.target(req.TypeName); t != nil && !s.off[shortcutValidate] {
		if resp, ok := s.validate(ctx, t, req); ok {
			tflog.Trace(ctx, "validation of a resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
			return resp, nil
		}
	}
	return s.ProviderServerWithListResource.ValidateResourceConfig(ctx, req)
}

var errUnsupportedValidation = errors.New("validation not supported by the validation shortcut")

// validate answers the validation of a configuration the schema's rules find
// nothing in (schemaSilent) with the diagnostics of the resource's part of it
// (validateResource); the framework reports what the rules find.
func (s *server) validate(ctx context.Context, t *target, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, bool) {
	info := t.info
	r, ok := t.New().(shortcutResource)
	if !ok || info.validateErr != nil || req.Config == nil || len(req.Config.JSON) > 0 {
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
	diags := validateResource(ctx, r, s.providerData(), resource.ValidateConfigRequest{
		Config: config, ClientCapabilities: resource.ValidateConfigClientCapabilities{WriteOnlyAttributesAllowed: writeOnlyAllowed},
	})
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoDiagnostics(ctx, diags)}, true
}

// checkValidation reports validation schemaSilent does not run: validators
// of a configurable attribute other than a string (schemaSilent leaves a
// configuration that sets a nested one to the framework), blocks other than
// single nested blocks of plain strings.
func checkValidation(s schema.Schema) error {
	for _, a := range s.Attributes {
		if a.IsComputed() && !a.IsOptional() {
			continue
		}
		if _, ok := a.(schema.StringAttribute); !ok && len(sliceField(a, "Validators")) > 0 {
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
