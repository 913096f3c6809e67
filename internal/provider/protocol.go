package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// applicationTypeName is the type name of the deckhouse_application resource.
const applicationTypeName = "deckhouse_application"

// ProtocolServer returns the provider's protocol server: the framework's
// server, with unchanged deckhouse_application plans answered directly.
//
// A plan of an Application whose configuration and refreshed state agree is
// the bulk of every plan over many Applications, and the framework spends
// most of the provider's time on it converting values it then returns
// unchanged: it runs attribute defaults, every attribute's plan modifiers
// (each one rewriting the whole planned value) and the resource's
// ModifyPlan, which returns at once for such a plan. The shortcut answers
// exactly what that pipeline answers (see planUnchanged) without decoding the
// values; anything else goes to the framework.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := &DeckhouseProvider{version: version}
		return &protocolServer{ProviderServer: providerserver.NewProtocol6(p)(), provider: p}
	}
}

// protocolServer is the framework's protocol server with the shortcuts.
type protocolServer struct {
	tfprotov6.ProviderServer
	provider *DeckhouseProvider
}

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

func (s *protocolServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req != nil && req.TypeName == applicationTypeName {
		if resp, ok := s.readUnchanged(ctx, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

// readUnchanged refreshes an Application as Read does and, when nothing
// changed, answers with the current state, private data and identity as they
// came: the framework would decode them, find Read left them alone, and
// encode them again. Anything else (drift, a deleted Application, an error,
// a state without identity) goes to the framework, which reads again.
func (s *protocolServer) readUnchanged(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, bool) {
	data := s.provider.configured.Load()
	cur := req.CurrentState
	if data == nil || cur == nil || req.CurrentIdentity == nil || req.CurrentIdentity.IdentityData == nil ||
		len(cur.JSON) > 0 || len(cur.MsgPack) == 0 || isMsgPackNil(cur.MsgPack) {
		return nil, false
	}
	info := applicationSchemaInfo(ctx)
	if info.err != nil {
		return nil, false
	}
	val, err := cur.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	var state applicationModel
	if diags := (tfsdk.State{Schema: info.schema, Raw: val}).Get(ctx, &state); diags.HasError() {
		return nil, false
	}
	paths, ok := privateKey(req.Private, privateSensitivePaths)
	if !ok {
		return nil, false
	}
	r := &ApplicationResource{data: data, cache: clusterCacheFor(data)}
	prior := state
	gone, diags := r.refresh(ctx, &state, decodePaths(paths))
	if gone || len(diags) > 0 || !sameModel(&prior, &state) || !identityIs(ctx, info, req.CurrentIdentity.IdentityData, &state) {
		return nil, false
	}
	return &tfprotov6.ReadResourceResponse{
		NewState:    cur,
		Private:     req.Private,
		NewIdentity: req.CurrentIdentity,
	}, true
}

func (s *protocolServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if req != nil && req.TypeName == applicationTypeName {
		if resp, ok := planUnchanged(ctx, req); ok {
			return resp, nil
		}
		if resp, ok := s.planCreate(ctx, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

// planCreate plans a new Application with the framework's steps for a
// resource without prior state, done on the top-level attributes only: the
// proposed state gets the defaults where the configuration is null, write-only
// values are removed, and computed attributes null in the configuration
// become unknown. Plan modifiers do nothing without a prior state (the schema
// has only UseStateForUnknown and RequiresReplace), so ModifyPlan comes next,
// as the framework calls it. A plan with diagnostics, replacements or an
// identity goes to the framework, which renders them.
func (s *protocolServer) planCreate(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	proposed, config := req.ProposedNewState, req.Config
	if s.provider.configured.Load() == nil || req.PriorState == nil || !isMsgPackNil(req.PriorState.MsgPack) ||
		len(req.PriorPrivate) > 0 || (req.PriorIdentity != nil && req.PriorIdentity.IdentityData != nil && !isMsgPackNil(req.PriorIdentity.IdentityData.MsgPack)) ||
		proposed == nil || config == nil || len(proposed.JSON) > 0 || len(config.JSON) > 0 ||
		len(proposed.MsgPack) == 0 || isMsgPackNil(proposed.MsgPack) {
		return nil, false
	}
	info := applicationSchemaInfo(ctx)
	if info.err != nil {
		return nil, false
	}
	cfgVal, err := config.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	var cfg map[string]tftypes.Value
	if cfgVal.As(&cfg) != nil {
		return nil, false
	}
	plan, err := objectAttributes(proposed, info.typ)
	if err != nil {
		return nil, false
	}
	for name, a := range info.attrs {
		c, ok := cfg[name]
		if !ok {
			return nil, false
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
	planVal := tftypes.NewValue(info.typ, plan)

	r := &ApplicationResource{}
	var cr resource.ConfigureResponse
	r.Configure(ctx, resource.ConfigureRequest{ProviderData: s.provider.configured.Load()}, &cr)
	mreq := resource.ModifyPlanRequest{
		ClientCapabilities: modifyPlanCapabilities(req.ClientCapabilities),
		Config:             tfsdk.Config{Schema: info.schema, Raw: cfgVal},
		Plan:               tfsdk.Plan{Schema: info.schema, Raw: planVal},
		State:              tfsdk.State{Schema: info.schema, Raw: tftypes.NewValue(info.typ, nil)},
	}
	mresp := resource.ModifyPlanResponse{Plan: mreq.Plan}
	r.ModifyPlan(ctx, mreq, &mresp)
	if len(cr.Diagnostics) > 0 || len(mresp.Diagnostics) > 0 || len(mresp.RequiresReplace) > 0 ||
		mresp.Deferred != nil || mresp.Identity != nil {
		return nil, false
	}
	planned, err := tfprotov6.NewDynamicValue(info.typ, mresp.Plan.Raw)
	if err != nil {
		return nil, false
	}
	identity := req.PriorIdentity
	if identity == nil {
		nullIdentity, err := tfprotov6.NewDynamicValue(info.identity, tftypes.NewValue(info.identity, nil))
		if err != nil {
			return nil, false
		}
		identity = &tfprotov6.ResourceIdentityData{IdentityData: &nullIdentity}
	}
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: &planned, PlannedIdentity: identity}, true
}

func modifyPlanCapabilities(c *tfprotov6.PlanResourceChangeClientCapabilities) resource.ModifyPlanClientCapabilities {
	if c == nil {
		return resource.ModifyPlanClientCapabilities{}
	}
	return resource.ModifyPlanClientCapabilities{DeferralAllowed: c.DeferralAllowed}
}

// planUnchanged answers the plan of an existing Application when the proposed
// new state is the prior state and no attribute default would change it. The
// framework's pipeline then leaves the plan equal to the prior state:
//   - defaults apply only where the configuration is null, and the check
//     below requires the proposed value to be the default there;
//   - write-only sensitive_settings is null in the prior state, so a
//     configured value makes the proposed state differ;
//   - computed values are marked unknown only when the plan differs from the
//     prior state;
//   - UseStateForUnknown and RequiresReplace act only on unknown or changed
//     values;
//   - ModifyPlan returns at once when the plan equals the prior state.
//
// So the answer is the prior state, private data and identity, unchanged.
func planUnchanged(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	prior, proposed, config := req.PriorState, req.ProposedNewState, req.Config
	if prior == nil || proposed == nil || config == nil || req.PriorIdentity == nil ||
		len(prior.JSON) > 0 || len(proposed.JSON) > 0 || len(config.JSON) > 0 ||
		len(prior.MsgPack) == 0 || isMsgPackNil(prior.MsgPack) ||
		!bytes.Equal(prior.MsgPack, proposed.MsgPack) {
		return nil, false
	}
	info := applicationSchemaInfo(ctx)
	if info.err != nil || len(info.defaults) > 0 && !defaultsHold(info, config, proposed) {
		return nil, false
	}
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState:    proposed,
		PlannedPrivate:  req.PriorPrivate,
		PlannedIdentity: req.PriorIdentity,
	}, true
}

// isMsgPackNil reports whether a MessagePack value is nil (a null object).
func isMsgPackNil(b []byte) bool { return len(b) == 1 && b[0] == 0xc0 }

// defaultsHold reports whether every attribute with a default is either
// configured or already holds its default in the proposed state. Only the
// top level of the two objects is read.
func defaultsHold(info *schemaInfo, config, proposed *tfprotov6.DynamicValue) bool {
	cfg, err := topLevelScalars(config.MsgPack, info.defaults)
	if err != nil {
		return false
	}
	var prop map[string]any
	for name, def := range info.defaults {
		c, ok := cfg[name]
		if !ok {
			return false
		}
		if c != nil {
			continue
		}
		if prop == nil {
			if prop, err = topLevelScalars(proposed.MsgPack, info.defaults); err != nil {
				return false
			}
		}
		if p, ok := prop[name]; !ok || p == nil || !scalarEquals(def, p) {
			return false
		}
	}
	return true
}

// topLevelScalars reads the named attributes of a MessagePack object: nil for
// null, else the decoded value (an unknown value decodes to a non-nil one).
func topLevelScalars(b []byte, names map[string]tftypes.Value) (map[string]any, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(names))
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return nil, err
		}
		if _, want := names[key]; !want {
			if err := dec.Skip(); err != nil {
				return nil, err
			}
			continue
		}
		code, err := dec.PeekCode()
		if err != nil {
			return nil, err
		}
		if msgpcode.IsExt(code) { // an unknown value
			out[key] = unknownScalar{}
			if err := dec.Skip(); err != nil {
				return nil, err
			}
			continue
		}
		v, err := dec.DecodeInterface()
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	return out, nil
}

// unknownScalar stands for an unknown value in topLevelScalars.
type unknownScalar struct{}

// scalarEquals compares a string or bool default with a decoded value.
func scalarEquals(def tftypes.Value, v any) bool {
	switch {
	case def.Type().Is(tftypes.String):
		var s string
		got, ok := v.(string)
		return def.As(&s) == nil && ok && got == s
	case def.Type().Is(tftypes.Bool):
		var b bool
		got, ok := v.(bool)
		return def.As(&b) == nil && ok && got == b
	}
	return false
}

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
	// validateErr is set when the schema has validation configValid does not
	// run: validators other than on top-level strings, or any below the top.
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
		if _, ok := any(r).(resource.ResourceWithConfigValidators); ok {
			applicationSchemaVal.validateErr = errUnsupportedValidation
		}
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
	errUnsupportedDefault    = errors.New("attribute default not supported by the plan shortcut")
	errUnsupportedValidation = errors.New("validation not supported by the validation shortcut")
)

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

// privateKey returns one provider key of the framework's private data (a JSON
// object of base64 values); ok is false when the data cannot be read.
func privateKey(private []byte, key string) (value []byte, ok bool) {
	if len(private) == 0 {
		return nil, true
	}
	var m map[string][]byte
	if err := json.Unmarshal(private, &m); err != nil {
		return nil, false
	}
	return m[key], true
}

// identityIs reports whether an encoded identity names the Application of state.
func identityIs(ctx context.Context, info *schemaInfo, data *tfprotov6.DynamicValue, state *applicationModel) bool {
	val, err := data.Unmarshal(info.identity)
	if err != nil {
		return false
	}
	want, err := types.ObjectValueMust(map[string]attr.Type{"namespace": types.StringType, "name": types.StringType},
		map[string]attr.Value{"namespace": state.Namespace, "name": state.Name}).ToTerraformValue(ctx)
	return err == nil && val.Equal(want)
}
