package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The behaviour of terraform-plugin-framework v1.19.0 that the shortcuts
// copy, each pinned by TestFrameworkBehaviour_<Name> (framework_test.go),
// which compares it with the answer of the framework in go.mod: a framework
// upgrade that changes one fails that test by name; change the copy here.
//
//  1. ValidationOrder: Configure with the provider's data (nil before the
//     provider's Configure), stopping at its error, then ConfigValidators,
//     ValidateConfig and the schema's validation, every diagnostic kept
//     (validateResource).
//  2. SchemaValidation: read-only attributes unset, required ones set,
//     write-only values only for clients that allow them, deprecations,
//     string validators, at the top level and in single nested blocks
//     (schemaSilent, blockSilent, attributeValid, attributeSilent).
//  3. CreatePlanOrder: defaults where the configuration is null, write-only
//     values null, computed ones unknown, then ModifyPlan with the null prior
//     state and identity and an empty private state (createPlan,
//     modifyPlanRequest).
//  4. PlanAnswer: what ModifyPlan left, replacements sorted and
//     deduplicated (planResponse).
//  5. PrivateEnvelope: a JSON object of base64 values, empty ones dropped
//     (privateData, newProviderData, encodeProviderData).
//  6. Diagnostics: severity, summary, detail and attribute path, with the
//     framework's error for a path that does not convert (protoDiagnostics).
//  7. NullIdentity: the null identity in the plans of a client without
//     identities, Terraform before 1.12 (priorIdentity).
//  8. UpgradeCurrent: a current state is its JSON decoded with the schema's
//     type, missing attributes null, as the CLIs decode a JSON answer.
//  9. ConfigureFailure: an error of Configure ends a call with its
//     diagnostics alone (configureFailed).
//  10. DestroyPlanIsPriorPrivateAndIdentity: the framework's destroy plan is
//     the null state, the prior private state and identity.

// validateResource runs the resource's part of a validation (ValidationOrder).
func validateResource(ctx context.Context, r shortcutResource, data any, req resource.ValidateConfigRequest) diag.Diagnostics {
	var resp resource.ConfigureResponse
	r.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &resp)
	diags := resp.Diagnostics
	if diags.HasError() {
		return diags
	}
	if v, ok := r.(resource.ResourceWithConfigValidators); ok {
		for _, cv := range v.ConfigValidators(ctx) {
			var resp resource.ValidateConfigResponse
			cv.ValidateResource(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
		}
	}
	var vresp resource.ValidateConfigResponse
	r.ValidateConfig(ctx, req, &vresp)
	return append(diags, vresp.Diagnostics...)
}

// schemaSilent reports whether the framework's validation of config by the
// schema finds nothing (SchemaValidation, within what checkValidation admits).
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

// blockSilent reports whether v of block b is null or silent.
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

// attributeValid reports whether the schema's rules (attributeSilent) and
// string validators find nothing in the value v of attribute a at p.
func attributeValid(ctx context.Context, p path.Path, a schema.Attribute, v tftypes.Value, config tfsdk.Config, writeOnlyAllowed bool) bool {
	if !attributeSilent(a, v, writeOnlyAllowed) {
		return false
	}
	if _, nested := a.(schema.NestedAttribute); nested {
		// checkValidation let it in without validators of its own: only a
		// null one has nothing to validate.
		return v.IsNull()
	}
	sa, ok := a.(schema.StringAttribute)
	if !ok || len(sa.Validators) == 0 {
		return true
	}
	sv, err := types.StringType.ValueFromTerraform(ctx, v)
	str, ok := sv.(types.String)
	if err != nil || !ok {
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

// attributeSilent reports whether the schema's rules find nothing in v.
func attributeSilent(a schema.Attribute, v tftypes.Value, writeOnlyAllowed bool) bool {
	null, unknown := v.IsNull(), !v.IsKnown()
	switch {
	case a.IsComputed() && !a.IsOptional() && !null,
		a.IsRequired() && null,
		a.IsWriteOnly() && !null && !writeOnlyAllowed,
		a.GetDeprecationMessage() != "" && !null && !unknown:
		return false
	}
	return true
}

// createPlan computes the framework's plan of a new resource before
// ModifyPlan (CreatePlanOrder; the plan modifiers checkPlan admits do nothing
// without a prior state). It is false when cfg lacks an attribute.
func createPlan(info *schemaInfo, cfg, plan map[string]tftypes.Value) bool {
	for name, a := range info.attrs {
		c, ok := cfg[name]
		if !ok {
			return false
		}
		switch {
		case !c.IsNull():
		case a.hasDefault:
			plan[name] = info.defaults[name]
		case a.writeOnly:
		case a.computed:
			plan[name] = tftypes.NewValue(a.unknownType, tftypes.UnknownValue)
		}
		if a.writeOnly && !plan[name].IsNull() {
			plan[name] = tftypes.NewValue(a.unknownType, nil)
		}
	}
	return true
}

// modifyPlanRequest is the framework's ModifyPlan request and response for
// the plan of a new resource (CreatePlanOrder), diags (Configure's) in it.
func modifyPlanRequest(info *schemaInfo, caps *tfprotov6.PlanResourceChangeClientCapabilities, config, plan tftypes.Value,
	diags diag.Diagnostics) (resource.ModifyPlanRequest, *resource.ModifyPlanResponse) {
	identity := tftypes.NewValue(info.identity, nil)
	req := resource.ModifyPlanRequest{
		Config:   tfsdk.Config{Schema: info.schema, Raw: config},
		Plan:     tfsdk.Plan{Schema: info.schema, Raw: plan},
		State:    tfsdk.State{Schema: info.schema, Raw: tftypes.NewValue(info.typ, nil)},
		Identity: &tfsdk.ResourceIdentity{Schema: info.identitySchema, Raw: identity.Copy()},
	}
	if caps != nil {
		req.ClientCapabilities.DeferralAllowed = caps.DeferralAllowed
	}
	newProviderData(&req.Private)
	return req, &resource.ModifyPlanResponse{Diagnostics: diags, Plan: req.Plan, RequiresReplace: path.Paths{}, Private: req.Private,
		Identity: &tfsdk.ResourceIdentity{Schema: info.identitySchema, Raw: identity.Copy()}}
}

// planResponse encodes what ModifyPlan left as the framework's answer
// (PlanAnswer).
func planResponse(ctx context.Context, info *schemaInfo, mresp *resource.ModifyPlanResponse) *tfprotov6.PlanResourceChangeResponse {
	diags := mresp.Diagnostics
	resp := &tfprotov6.PlanResourceChangeResponse{}
	if mresp.Deferred != nil {
		resp.Deferred = &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(mresp.Deferred.Reason)}
	}
	resp.PlannedState = encodeValue(info.typ, mresp.Plan.Raw, "Plan", "plan", &diags)
	if mresp.Identity != nil {
		if id := encodeValue(info.identity, mresp.Identity.Raw, "Resource Identity", "resource identity", &diags); id != nil {
			resp.PlannedIdentity = &tfprotov6.ResourceIdentityData{IdentityData: id}
		}
	}
	for _, p := range normaliseRequiresReplace(mresp.RequiresReplace) {
		at, err := attributePath(ctx, p)
		if err != nil {
			diags.Append(pathError(p, err))
			resp.RequiresReplace = nil
			break
		}
		resp.RequiresReplace = append(resp.RequiresReplace, at)
	}
	resp.PlannedPrivate = encodeProviderData(mresp.Private)
	resp.Diagnostics = protoDiagnostics(ctx, diags)
	return resp
}

// normaliseRequiresReplace sorts paths by their string form and drops
// duplicates, as the framework does with a plan's replacements.
func normaliseRequiresReplace(ps path.Paths) path.Paths {
	slices.SortFunc(ps, func(a, b path.Path) int { return strings.Compare(a.String(), b.String()) })
	return slices.CompactFunc(ps, path.Path.Equal)
}

// encodeValue encodes v, or adds the framework's error (title and noun name v).
func encodeValue(typ tftypes.Type, v tftypes.Value, title, noun string, diags *diag.Diagnostics) *tfprotov6.DynamicValue {
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		diags.AddError("Unable to Convert "+title,
			"An unexpected error was encountered when converting the "+noun+" to the protocol type. "+
				"This is always an issue in terraform-plugin-framework used to implement the provider and should be reported to the provider developers.\n\n"+
				"Please report this to the provider developer:\n\n"+
				"Unable to create DynamicValue: "+err.Error())
		return nil
	}
	return &dv
}

// configureFailed answers a call whose Configure failed (ConfigureFailure).
func configureFailed(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	return protoDiagnostics(ctx, diags)
}

// privateData decodes the framework's private state (PrivateEnvelope); ok is
// false when it cannot be read.
func privateData(private []byte) (Private, bool) {
	if len(private) == 0 {
		return Private{}, true
	}
	var m map[string][]byte
	if err := json.Unmarshal(private, &m); err != nil {
		return nil, false
	}
	return m, true
}

// providerDataType is that of ModifyPlanResponse.Private, of an internal
// package: newProviderData and encodeProviderData reach it by reflection.
var providerDataType = reflect.TypeOf(resource.ModifyPlanResponse{}.Private)

// newProviderData sets *field (a ModifyPlanRequest's Private) to an empty
// provider private state, as the framework hands one to ModifyPlan.
func newProviderData(field any) {
	reflect.ValueOf(field).Elem().Set(reflect.New(providerDataType.Elem()))
}

// encodeProviderData encodes a provider private state as the framework's
// private state (PrivateEnvelope): its keys with a value, nil when none has
// one. Its SetKey, the only way to set a key, checked each value.
func encodeProviderData(pd any) []byte {
	v := reflect.ValueOf(pd)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	m := v.Elem().FieldByName("data")
	if m.Kind() != reflect.Map {
		return nil
	}
	kept := map[string][]byte{}
	for it := m.MapRange(); it.Next(); {
		if b := it.Value().Bytes(); len(b) > 0 {
			kept[it.Key().String()] = b
		}
	}
	if len(kept) == 0 {
		return nil
	}
	b, _ := json.Marshal(kept) // a map of byte slices always encodes
	return b
}

// protoDiagnostics converts diagnostics as the framework does (Diagnostics).
func protoDiagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityInvalid}
		switch d.Severity() {
		case diag.SeverityError:
			pd.Severity = tfprotov6.DiagnosticSeverityError
		case diag.SeverityWarning:
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			at, err := attributePath(ctx, dp.Path())
			if err != nil {
				out = append(out, protoDiagnostics(ctx, diag.Diagnostics{pathError(dp.Path(), err)})...)
			}
			pd.Attribute = at
		}
		out = append(out, pd)
	}
	return out
}

// pathError is the framework's error for a path that does not convert.
func pathError(p path.Path, err error) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Unable to Convert Attribute Path",
		"An unexpected error occurred while trying to convert an attribute path. "+
			"This is either an error in terraform-plugin-framework or a custom attribute type used by the provider. "+
			"Please report the following to the provider developers.\n\n"+
			fmt.Sprintf("Attribute Path: %s\n", p.String())+
			fmt.Sprintf("Original Error: %s", err))
}

// attributePath converts a framework path to the protocol's (Diagnostics).
func attributePath(ctx context.Context, p path.Path) (*tftypes.AttributePath, error) {
	var steps []tftypes.AttributePathStep
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			steps = append(steps, tftypes.AttributeName(string(s)))
		case path.PathStepElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(int64(s)))
		case path.PathStepElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(string(s)))
		case path.PathStepElementKeyValue:
			v, err := s.ToTerraformValue(ctx)
			if err != nil {
				return nil, err
			}
			steps = append(steps, tftypes.ElementKeyValue(v))
		default:
			return nil, fmt.Errorf("unknown path step %#v", step)
		}
	}
	return tftypes.NewAttributePathWithSteps(steps), nil
}

// priorIdentity is the planned identity of a plan that leaves the identity
// alone: the prior one, else the null identity (NullIdentity).
func priorIdentity(info *schemaInfo, prior *tfprotov6.ResourceIdentityData) *tfprotov6.ResourceIdentityData {
	if prior != nil && prior.IdentityData != nil {
		return prior
	}
	null, _ := tfprotov6.NewDynamicValue(info.identity, tftypes.NewValue(info.identity, nil)) // a null value always encodes
	return &tfprotov6.ResourceIdentityData{IdentityData: &null}
}
