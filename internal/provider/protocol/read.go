package protocol

import (
	"bytes"
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	msgpack "github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	// Read may defer (a client that allows it), ReadUnchanged does not.
	if t := s.target(req.TypeName); t != nil && !s.off[shortcutRead] && (req.ClientCapabilities == nil || !req.ClientCapabilities.DeferralAllowed) {
		resp, next, ok := s.readUnchanged(ctx, t, req)
		if ok {
			return resp, nil
		}
		ctx = next
	}
	return s.ProviderServerWithListResource.ReadResource(ctx, req)
}

// readUnchanged answers a refresh the configured resource's ReadUnchanged
// finds unchanged with the state and private state as they came (the
// framework would decode them, find Read left them alone, and encode them
// again) and the diagnostics Read would give. The identity is the one the
// client sent (the resource's must equal it), else the resource's, as the
// framework fills a missing one (Terraform before 1.12). Anything else goes
// to the framework in the context the resource returned (next).
func (s *server) readUnchanged(ctx context.Context, t *target, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, context.Context, bool) {
	cur := req.CurrentState
	if !given(cur) {
		return nil, ctx, false
	}
	private, ok := privateData(req.Private)
	strs, err := topLevelStrings(cur.MsgPack)
	if !ok || err != nil {
		return nil, ctx, false
	}
	r, cdiags, ok := s.configure(ctx, t)
	reader, isReader := r.(UnchangedReader)
	if !ok || len(cdiags) > 0 || !isReader {
		return nil, ctx, false
	}
	identity, diags, next, ok := reader.ReadUnchanged(ctx, strs, private)
	if next == nil {
		next = ctx
	}
	newIdentity, fits := identityAnswer(t.info.identity, req.CurrentIdentity, identity)
	if !ok || diags.HasError() || !fits {
		return nil, next, false
	}
	tflog.Trace(ctx, "refresh of an unchanged resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return &tfprotov6.ReadResourceResponse{NewState: cur, Private: req.Private, NewIdentity: newIdentity, Diagnostics: protoDiagnostics(ctx, diags)}, next, true
}

// identityAnswer is sent when it equals identity, else identity encoded; ok
// is false when they differ (the framework reports that) or identity does
// not fit typ, an object of string attributes.
func identityAnswer(typ tftypes.Type, sent *tfprotov6.ResourceIdentityData, identity map[string]string) (*tfprotov6.ResourceIdentityData, bool) {
	obj, ok := typ.(tftypes.Object)
	if !ok || len(obj.AttributeTypes) != len(identity) {
		return nil, false
	}
	attrs := make(map[string]tftypes.Value, len(identity))
	for name, at := range obj.AttributeTypes {
		v, ok := identity[name]
		if !ok || !at.Is(tftypes.String) {
			return nil, false
		}
		attrs[name] = tftypes.NewValue(tftypes.String, v)
	}
	val := tftypes.NewValue(typ, attrs)
	if sent != nil && sent.IdentityData != nil {
		got, err := sent.IdentityData.Unmarshal(typ)
		if err != nil || !got.Equal(val) {
			return nil, false
		}
		return sent, true
	}
	dv, err := tfprotov6.NewDynamicValue(typ, val)
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}, err == nil
}

// topLevelStrings reads the known, non-null string attributes at the top
// level of a MessagePack object.
func topLevelStrings(b []byte) (map[string]string, error) {
	m, err := topLevelScalars(b, nil)
	strs := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			strs[k] = s
		}
	}
	return strs, err
}

// topLevelScalars reads the top-level attributes of a MessagePack object
// that names holds (all for nil) and are a string, bool, null (nil) or
// unknown (unknownScalar); every other value is skipped undecoded.
func topLevelScalars(b []byte, names map[string]tftypes.Value) (map[string]any, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, n)
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return nil, err
		}
		code, err := dec.PeekCode()
		if err != nil {
			return nil, err
		}
		_, named := names[key]
		switch {
		case names != nil && !named:
		case msgpcode.IsExt(code):
			out[key] = unknownScalar{}
		case msgpcode.IsString(code) || code == msgpcode.True || code == msgpcode.False || code == msgpcode.Nil:
			if out[key], err = dec.DecodeInterface(); err != nil {
				return nil, err
			}
			continue
		}
		if err := dec.Skip(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// unknownScalar stands for an unknown value in topLevelScalars.
type unknownScalar struct{}
