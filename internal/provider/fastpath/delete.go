package fastpath

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Deleter is implemented by a resource whose Delete can run on the prior
// state's value directly. DeleteValues gets the prior state, an object of
// the schema's type, and the provider's private state keys, does what Delete
// does with them, and returns its diagnostics. It must leave the state and
// the private data as they came, as the resource's Delete does. It returns
// ok false only when it did nothing: the call then goes to the framework.
type Deleter interface {
	DeleteValues(ctx context.Context, prior tftypes.Value, private Private) (diags diag.Diagnostics, ok bool)
}

// applyDelete answers the apply of a destroy (a null planned state) as the
// framework's DeleteResource does: after a delete without errors the state
// is null, the private data gone and the identity null; after an error the
// state, the private data and the identity stay as they came. A request with
// provider meta data goes to the framework.
func (s *server) applyDelete(ctx context.Context, t *target, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, bool) {
	info := t.info
	prior, planned := req.PriorState, req.PlannedState
	if !info.deleter || prior == nil || planned == nil || len(prior.JSON) > 0 || len(planned.JSON) > 0 ||
		len(prior.MsgPack) == 0 || isMsgPackNil(prior.MsgPack) || !isMsgPackNil(planned.MsgPack) ||
		(req.ProviderMeta != nil && len(req.ProviderMeta.MsgPack) > 0 && !isMsgPackNil(req.ProviderMeta.MsgPack)) {
		return nil, false
	}
	private, ok := privateData(req.PlannedPrivate)
	if !ok {
		return nil, false
	}
	priorVal, err := prior.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	identity, ok := priorIdentity(info, req.PlannedIdentity)
	if !ok {
		return nil, false
	}
	r, cdiags, ok := s.configure(ctx, t)
	if !ok {
		return nil, false
	}
	if cdiags.HasError() {
		tflog.Trace(ctx, "delete answered by the protocol shortcut: Configure failed", map[string]any{"type": req.TypeName})
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: configureFailed(ctx, cdiags)}, true
	}
	deleter, ok := r.(Deleter)
	if !ok {
		return nil, false // t.New returned another type
	}
	diags, ok := deleter.DeleteValues(ctx, priorVal, private)
	if !ok {
		return nil, false
	}
	tflog.Trace(ctx, "delete answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return deleteResponse(ctx, info, prior, identity, private, append(cdiags, diags...)), true
}
