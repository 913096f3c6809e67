package fastpath

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	msgpack "github.com/vmihailenco/msgpack/v5"
)

// Creator is implemented by a resource whose Create can run on the
// request's values directly. CreateValues gets the planned state, an object
// of the schema's type, and the configuration's values of the write-only
// attributes by name (the only configured values the planned state does not
// hold), does what Create does with them, and returns what Create would
// leave in its response: the new state (a null object when nothing was
// recorded), the provider's private state keys (a nil or empty value: no
// key), the identity's string attributes by name (when the state is not
// null), and the diagnostics. It returns ok false only when it did nothing
// (it could not decode the values, for one): the call then goes to the
// framework.
type Creator interface {
	CreateValues(ctx context.Context, planned tftypes.Value, writeOnly map[string]tftypes.Value) (
		state tftypes.Value, private Private, identity map[string]string, diags diag.Diagnostics, ok bool)
}

// created is what a Creator's create gave.
type created struct {
	state    tftypes.Value
	private  Private
	identity map[string]string
	diags    diag.Diagnostics
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req != nil {
		if t := s.target(req.TypeName); t != nil {
			if !s.off[shortcutApplyCreate] {
				if resp, ok := s.applyCreate(ctx, t, req); ok {
					return resp, nil
				}
			}
			if !s.off[shortcutDestroy] {
				if resp, ok := s.applyDelete(ctx, t, req); ok {
					return resp, nil
				}
			}
		}
	}
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// applyCreate answers the apply of a new resource as the framework's
// CreateResource does, without its conversions around the resource's own
// work: decode the planned state and the configuration's write-only values
// (the rest of the configuration is in the plan), create, then the
// framework's checks of the result (a state and an identity after a create
// without errors), write-only attributes set to null, the private data
// encoded as the framework encodes it. checkApply keeps the schema within
// what this covers (no semantic equality, write-only attributes only at the
// top level). A request with planned private data, provider meta data or a
// planned identity goes to the framework, and so does everything that is not
// a create.
func (s *server) applyCreate(ctx context.Context, t *target, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, bool) {
	info := t.info
	planned, config := req.PlannedState, req.Config
	if info.applyErr != nil || req.PriorState == nil || !isMsgPackNil(req.PriorState.MsgPack) ||
		planned == nil || config == nil || len(planned.JSON) > 0 || len(config.JSON) > 0 ||
		len(planned.MsgPack) == 0 || isMsgPackNil(planned.MsgPack) || len(req.PlannedPrivate) > 0 ||
		(req.ProviderMeta != nil && len(req.ProviderMeta.MsgPack) > 0 && !isMsgPackNil(req.ProviderMeta.MsgPack)) ||
		(req.PlannedIdentity != nil && req.PlannedIdentity.IdentityData != nil && !isMsgPackNil(req.PlannedIdentity.IdentityData.MsgPack)) {
		return nil, false
	}
	planVal, err := planned.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	writeOnly, err := writeOnlyValues(config.MsgPack, info)
	if err != nil {
		return nil, false
	}
	r, ok := s.configured(ctx, t)
	if !ok {
		return nil, false
	}
	creator, ok := r.(Creator)
	if !ok {
		return nil, false
	}
	var out created
	out.state, out.private, out.identity, out.diags, ok = creator.CreateValues(ctx, planVal, writeOnly)
	if !ok {
		return nil, false
	}
	tflog.Trace(ctx, "create answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return createResponse(ctx, info, out), true
}

// createResponse encodes what a create gave as the framework's
// CreateResource and its protocol conversion would.
func createResponse(ctx context.Context, info *schemaInfo, out created) *tfprotov6.ApplyResourceChangeResponse {
	diags := out.diags
	state := out.state
	if state.Type() == nil {
		state = tftypes.NewValue(info.typ, nil)
	}
	created := !diags.HasError()
	if created && state.IsNull() {
		diags.AddError("Missing Resource State After Create",
			"The Terraform Provider unexpectedly returned no resource state after having no errors in the resource creation. "+
				"This is always an issue in the Terraform Provider and should be reported to the provider developers.\n\n"+
				"The resource may have been successfully created, but Terraform is not tracking it. "+
				"Applying the configuration again with no other action may result in duplicate resource errors. "+
				"Import the resource if the resource was actually created and Terraform should be tracking it.")
		created = false
	}
	resp := &tfprotov6.ApplyResourceChangeResponse{}
	var identity *tfprotov6.ResourceIdentityData
	if created {
		id, ok := identityAnswer(info.identity, nil, out.identity)
		if !ok {
			diags.AddError("Missing Resource Identity After Create",
				"The Terraform Provider unexpectedly returned no resource identity data after having no errors in the resource create. "+
					"This is always an issue in the Terraform Provider and should be reported to the provider developers.")
		} else {
			identity = id
			state = nullWriteOnly(info, state)
		}
	}
	if identity == nil {
		identity, _ = priorIdentity(info, nil)
	}
	resp.NewIdentity = identity
	if dv, err := tfprotov6.NewDynamicValue(info.typ, state); err == nil {
		resp.NewState = &dv
	} else {
		diags.AddError("Unable to Convert State", "An unexpected error was encountered when converting the state to the protocol type: "+err.Error())
	}
	private, pdiags := encodePrivate(out.private)
	diags.Append(pdiags...)
	resp.Private = private
	resp.Diagnostics = protoDiagnostics(ctx, diags)
	return resp
}

// nullWriteOnly sets the top-level write-only attributes of a known object
// to null (checkApply admits no nested ones).
func nullWriteOnly(info *schemaInfo, state tftypes.Value) tftypes.Value {
	var attrs map[string]tftypes.Value
	if !state.IsKnown() || state.IsNull() || state.As(&attrs) != nil {
		return state
	}
	changed := false
	for name, a := range info.attrs {
		if v, ok := attrs[name]; ok && a.writeOnly && !v.IsNull() {
			attrs[name] = tftypes.NewValue(a.unknownType, nil)
			changed = true
		}
	}
	if !changed {
		return state
	}
	return tftypes.NewValue(info.typ, attrs)
}

// encodePrivate encodes the provider's private state keys as the
// framework's private state: a JSON object of the keys with a value, each
// value valid UTF-8 and JSON; nil when none has one.
func encodePrivate(p Private) ([]byte, diag.Diagnostics) {
	var diags diag.Diagnostics
	kept := make(map[string][]byte, len(p))
	for k, v := range p {
		if len(v) == 0 {
			continue
		}
		if !utf8.Valid(v) || !json.Valid(v) {
			diags.AddError("Error Encoding Private State",
				fmt.Sprintf("An error was encountered when validating private state value. The value associated with key %q is not valid UTF-8 JSON.", k))
			continue
		}
		kept[k] = v
	}
	if diags.HasError() || len(kept) == 0 {
		return nil, diags
	}
	b, err := json.Marshal(kept)
	if err != nil {
		diags.AddError("Error Encoding Private State", "An error was encountered when encoding private state: "+err.Error())
		return nil, diags
	}
	return b, diags
}

// protoDiagnostics converts diagnostics as the framework does: severity,
// summary, detail, and the attribute path of a diagnostic with one.
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
				out = append(out, &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError,
					Summary: "Unable to Convert Attribute Path",
					Detail:  fmt.Sprintf("Attribute Path: %s\nOriginal Error: %s", dp.Path(), err)})
			}
			pd.Attribute = at
		}
		out = append(out, pd)
	}
	return out
}

// attributePath converts a framework path to the protocol's.
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

// writeOnlyValues decodes the top-level write-only attributes of a
// MessagePack object of the schema's type, skipping every other value
// undecoded; each write-only attribute is present, null when the object
// lacks it.
func writeOnlyValues(b []byte, info *schemaInfo) (map[string]tftypes.Value, error) {
	out := map[string]tftypes.Value{}
	for name, a := range info.attrs {
		if a.writeOnly {
			out[name] = tftypes.NewValue(a.unknownType, nil)
		}
	}
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return nil, err
		}
		if _, ok := out[key]; !ok {
			if err := dec.Skip(); err != nil {
				return nil, err
			}
			continue
		}
		raw, err := dec.DecodeRaw()
		if err != nil {
			return nil, err
		}
		if out[key], err = (&tfprotov6.DynamicValue{MsgPack: raw}).Unmarshal(info.attrs[key].unknownType); err != nil {
			return nil, err
		}
	}
	return out, nil
}
