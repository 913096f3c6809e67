package fastpath

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req != nil && !s.off[shortcutRead] {
		if t := s.target(req.TypeName); t != nil {
			if resp, ok := s.readUnchanged(ctx, t, req); ok {
				return resp, nil
			}
		}
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

// readUnchanged asks the configured resource whether a refresh changes
// anything and, when nothing changed, answers with the current state,
// private data and identity as they came: the framework would decode them,
// find Read left them alone, and encode them again. Anything else (drift, a
// deleted object, an error, a state without identity, a resource that does
// not implement UnchangedReader) goes to the framework, whose Read reads
// again.
func (s *server) readUnchanged(ctx context.Context, t *target, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, bool) {
	cur := req.CurrentState
	if cur == nil || req.CurrentIdentity == nil || req.CurrentIdentity.IdentityData == nil ||
		len(cur.JSON) > 0 || len(cur.MsgPack) == 0 || isMsgPackNil(cur.MsgPack) {
		return nil, false
	}
	private, ok := privateData(req.Private)
	if !ok {
		return nil, false
	}
	info := t.info
	val, err := cur.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	id, err := req.CurrentIdentity.IdentityData.Unmarshal(info.identity)
	if err != nil {
		return nil, false
	}
	r, ok := s.configured(ctx, t)
	if !ok {
		return nil, false
	}
	reader, ok := r.(UnchangedReader)
	if !ok || !reader.ReadUnchanged(ctx, tfsdk.State{Schema: info.schema, Raw: val},
		tfsdk.ResourceIdentity{Schema: info.identitySchema, Raw: id}, private) {
		return nil, false
	}
	tflog.Trace(ctx, "refresh of an unchanged resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return &tfprotov6.ReadResourceResponse{
		NewState:    cur,
		Private:     req.Private,
		NewIdentity: req.CurrentIdentity,
	}, true
}
