package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

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
// copy, each under the name of the test that compares it with the
// framework's own answer for the version in go.mod
// (TestFrameworkBehaviour_<Name> in framework_test.go). A framework upgrade
// that changes one fails that test by name: change the copy here.
//
//  1. ValidationOrder: a validation configures the resource with the
//     provider's data (nil before the provider's Configure ran) and stops at
//     an error of Configure, then runs the resource's ConfigValidators, its
//     ValidateConfig and the schema's validation, in that order, each
//     diagnostic kept (validateResource).
//  2. SchemaValidation: the schema's validation the validation shortcut runs
//     itself, before any resource method: a read-only attribute set, a
//     required one null, a write-only value for a client that does not
//     allow them, a deprecated attribute set, a string validator's finding,
//     at the top level and in single nested blocks (schemaSilent,
//     blockSilent, attributeValid, attributeSilent).
//  3. CreatePlanOrder: a create's plan is the proposed state with the
//     defaults where the configuration is null, write-only values null, and
//     computed attributes null in the configuration unknown; ModifyPlan gets
//     it with the null prior state, the null identity and an empty private
//     state (createPlan, modifyPlanRequest).
//  4. PlanAnswer: a plan's answer is what ModifyPlan left, diagnostics
//     included: planned state, identity, the replacements sorted and
//     deduplicated, the deferral, the private state (planResponse).
//  5. PrivateEnvelope: the private state is a JSON object of base64 values
//     (the provider's keys and the framework's), empty values dropped
//     (privateData, encodePrivate, newProviderData, providerKeys).
//  6. Diagnostics: diagnostics keep severity, summary, detail and attribute
//     path; a path that does not convert adds the framework's error
//     (protoDiagnostics, attributePath).
//  7. NullIdentity: a client without resource identity (Terraform before
//     1.12) gets the null identity in plans; an unchanged plan keeps the
//     identity it came with (priorIdentity).
//  8. UpgradeCurrent: a state of the current schema version is decoded from
//     its JSON with attributes the schema lacks ignored, and encoded again
//     (upgradeOptions).
//  9. ConfigureFailure: an error of Configure ends any call with its
//     diagnostics alone (configureFailed).
//  10. DestroyPlanIsPriorPrivateAndIdentity: the framework's plan of a
//     destroy is the null state, the prior private state and the prior
//     identity, nothing of the resource's own (destroy.go, the plan the
//     CLIs make instead).

// validateResource runs a resource's part of the framework's
// ValidateResourceConfig on r (ValidationOrder), with the schema's part
// already found silent: Configure with data, then, unless it failed, each
// ConfigValidator and ValidateConfig. Every diagnostic is kept.
func validateResource(ctx context.Context, r resource.Resource, data any, req resource.ValidateConfigRequest) diag.Diagnostics {
	var diags diag.Diagnostics
	if c, ok := r.(resource.ResourceWithConfigure); ok {
		var resp resource.ConfigureResponse
		c.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &resp)
		diags.Append(resp.Diagnostics...)
		if diags.HasError() {
			return diags
		}
	}
	if v, ok := r.(resource.ResourceWithConfigValidators); ok {
		for _, cv := range v.ConfigValidators(ctx) {
			var resp resource.ValidateConfigResponse
			cv.ValidateResource(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
		}
	}
	if v, ok := r.(resource.ResourceWithValidateConfig); ok {
		var resp resource.ValidateConfigResponse
		v.ValidateConfig(ctx, req, &resp)
		diags.Append(resp.Diagnostics...)
	}
	return diags
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

// attributeSilent reports whether the framework's schema validation has
// nothing to say of one attribute's value before its validators run
// (SchemaValidation).
func attributeSilent(a interface {
	IsComputed() bool
	IsOptional() bool
	IsRequired() bool
	IsWriteOnly() bool
	GetDeprecationMessage() string
}, v tftypes.Value, writeOnlyAllowed bool) bool {
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
// ModifyPlan on the top-level attributes (CreatePlanOrder): the default
// where the configuration is null, then write-only values null, then
// computed attributes null in the configuration unknown. Plan modifiers do
// nothing without a prior state (checkPlan admits only UseStateForUnknown and
// RequiresReplace). ok is false when cfg lacks an attribute.
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
// the plan of a new resource (CreatePlanOrder): the configuration, the plan,
// the null prior state, the null identity and an empty private state; the
// response starts from the plan, with diags (Configure's) in it.
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
	return req, &resource.ModifyPlanResponse{
		Diagnostics:     diags,
		Plan:            req.Plan,
		RequiresReplace: path.Paths{},
		Private:         req.Private,
		Identity:        &tfsdk.ResourceIdentity{Schema: info.identitySchema, Raw: identity.Copy()},
	}
}

// planResponse encodes what ModifyPlan left as the framework's
// PlanResourceChange answer (PlanAnswer): its diagnostics first, then those
// of encoding the planned state, the identity, the replacements and the
// private state.
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
	resp.PlannedPrivate = encodePrivate(providerKeys(mresp.Private))
	resp.Diagnostics = protoDiagnostics(ctx, diags)
	return resp
}

// normaliseRequiresReplace sorts paths by their string form and drops
// duplicates, as the framework does with a plan's replacements.
func normaliseRequiresReplace(ps path.Paths) path.Paths {
	if len(ps) < 2 {
		return ps
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].String() < ps[j].String() })
	out := path.Paths{ps[0]}
	for _, p := range ps[1:] {
		if !p.Equal(out[len(out)-1]) {
			out = append(out, p)
		}
	}
	return out
}

// encodeValue encodes v as a DynamicValue of typ, adding the framework's
// error when it does not encode (title and noun name what v is).
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

// configureFailed is the framework's answer to a call whose Configure
// failed: its diagnostics alone (ConfigureFailure).
func configureFailed(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	return protoDiagnostics(ctx, diags)
}

// privateData decodes the framework's private state (a JSON object of
// base64 values, PrivateEnvelope); ok is false when it cannot be read.
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

// encodePrivate encodes private state keys as the framework's private state
// (PrivateEnvelope): a JSON object of the keys with a value; nil when none
// has one. The framework's SetKey, the only way a resource sets a key, has
// checked that each value is valid UTF-8 and JSON.
func encodePrivate(p Private) []byte {
	kept := make(map[string][]byte, len(p))
	for k, v := range p {
		if len(v) > 0 {
			kept[k] = v
		}
	}
	if len(kept) == 0 {
		return nil
	}
	b, _ := json.Marshal(kept) // a map of byte slices always encodes
	return b
}

// providerDataType is the framework's provider private state type, the
// element type of ModifyPlanResponse.Private; its package is internal, so
// newProviderData and providerKeys reach it by reflection (PrivateEnvelope).
var providerDataType = reflect.TypeOf(resource.ModifyPlanResponse{}.Private)

// newProviderData sets *field (a ModifyPlanRequest's or response's
// Private) to an empty provider private state, as the framework hands one
// to ModifyPlan.
func newProviderData(field any) {
	reflect.ValueOf(field).Elem().Set(reflect.New(providerDataType.Elem()))
}

// providerKeys returns the keys a provider private state holds (nil for a
// nil one).
func providerKeys(pd any) Private {
	v := reflect.ValueOf(pd)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	m := v.Elem().FieldByName("data")
	if !m.IsValid() || m.Kind() != reflect.Map {
		return nil
	}
	out := make(Private, m.Len())
	for it := m.MapRange(); it.Next(); {
		out[it.Key().String()] = append([]byte(nil), it.Value().Bytes()...)
	}
	return out
}

// protoDiagnostics converts diagnostics as the framework does
// (Diagnostics): severity, summary, detail, and the attribute path of a
// diagnostic with one, preceded by the framework's error when that path does
// not convert.
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

// priorIdentity returns the planned identity of a plan that leaves the
// identity alone (NullIdentity): the prior identity, or, when the client
// sent none (a client without identity support, or a new resource), the
// null identity the framework starts from.
func priorIdentity(info *schemaInfo, prior *tfprotov6.ResourceIdentityData) (*tfprotov6.ResourceIdentityData, bool) {
	if prior != nil && prior.IdentityData != nil {
		return prior, true
	}
	null, err := tfprotov6.NewDynamicValue(info.identity, tftypes.NewValue(info.identity, nil))
	if err != nil {
		return nil, false
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &null}, true
}

// upgradeOptions decode a stored state of the current version as the
// framework's UpgradeResourceState does (UpgradeCurrent): attributes the
// schema no longer has are ignored.
var upgradeOptions = tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}}
