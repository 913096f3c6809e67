package fastpath

import (
	"bytes"
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
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
// key; each checked as the framework's SetKey checks it), the identity's string attributes by name (when the state is not
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
	if info.applyErr != nil || !info.creator || req.PriorState == nil || !isMsgPackNil(req.PriorState.MsgPack) ||
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
	r, cdiags, ok := s.configure(ctx, t)
	if !ok {
		return nil, false
	}
	if cdiags.HasError() {
		tflog.Trace(ctx, "create answered by the protocol shortcut: Configure failed", map[string]any{"type": req.TypeName})
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: configureFailed(ctx, cdiags)}, true
	}
	creator, ok := r.(Creator)
	if !ok {
		return nil, false // t.New returned another type
	}
	var out created
	out.state, out.private, out.identity, out.diags, ok = creator.CreateValues(ctx, planVal, writeOnly)
	if !ok {
		// CreateValues did nothing (its values did not decode): the
		// framework's Configure, which only takes the provider's data, and
		// Create run instead.
		return nil, false
	}
	out.diags = append(cdiags, out.diags...)
	_, importable := r.(resource.ResourceWithImportState)
	tflog.Trace(ctx, "create answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return createResponse(ctx, info, out, importable), true
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
