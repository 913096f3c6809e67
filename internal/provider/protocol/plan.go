package protocol

import (
	"bytes"
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	// ModifyPlan may defer (a client that allows it), planUnchanged does not.
	if t := s.target(req.TypeName); t != nil && !s.off[shortcutPlanUnchanged] && (req.ClientCapabilities == nil || !req.ClientCapabilities.DeferralAllowed) {
		if resp, ok := planUnchanged(ctx, t, req); ok {
			return resp, nil
		}
	}
	if t := s.target(req.TypeName); t != nil && !s.off[shortcutPlanCreate] {
		if resp, ok := s.planCreate(ctx, t, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServerWithListResource.PlanResourceChange(ctx, req)
}

// planCreate plans a new resource as the framework does (createPlan, then
// the resource's ModifyPlan). Once Configure has run, the answer is the
// shortcut's (planResponse): the framework would run ModifyPlan again.
func (s *server) planCreate(ctx context.Context, t *target, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	if req.PriorState == nil || !isMsgPackNil(req.PriorState.MsgPack) || len(req.PriorPrivate) > 0 ||
		(req.PriorIdentity != nil && given(req.PriorIdentity.IdentityData)) || given(req.ProviderMeta) ||
		!given(req.ProposedNewState) || !given(req.Config) {
		return nil, false
	}
	info := t.info
	cfgVal, cfg, err := decodeObject(req.Config, info.typ)
	if err != nil {
		return nil, false
	}
	_, plan, err := decodeObject(req.ProposedNewState, info.typ)
	if err != nil || !createPlan(info, cfg, plan) {
		return nil, false
	}
	r, cdiags, ok := s.configure(ctx, t)
	if !ok {
		return nil, false
	}
	if cdiags.HasError() {
		tflog.Trace(ctx, "plan of a new resource answered by the protocol shortcut: Configure failed", map[string]any{"type": req.TypeName})
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: configureFailed(ctx, cdiags)}, true
	}
	mreq, mresp := modifyPlanRequest(info, req.ClientCapabilities, cfgVal, tftypes.NewValue(info.typ, plan), cdiags)
	r.ModifyPlan(ctx, mreq, mresp)
	tflog.Trace(ctx, "plan of a new resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return planResponse(ctx, info, mresp), true
}

// planUnchanged answers the plan of an existing resource when the proposed
// new state is the prior state and no attribute default would change it
// (defaultsHold). The framework's pipeline then leaves the plan equal to the
// prior state: defaults apply only where the configuration is null; a
// configured write-only value, null in every state, makes the proposed state
// differ; computed values become unknown, and UseStateForUnknown and
// RequiresReplace act, only on values that changed; and the resource's
// ModifyPlan leaves such a plan alone unless PlanUnchanged says its private
// state asks for more (an update not applied yet, for example). So the
// answer is the prior state, private state and identity (the null identity
// when the client sent none, as the framework answers).
func planUnchanged(ctx context.Context, t *target, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	prior, proposed := req.PriorState, req.ProposedNewState
	if !given(prior) || !given(req.Config) || !given(proposed) || !bytes.Equal(prior.MsgPack, proposed.MsgPack) {
		return nil, false
	}
	planner, ok := t.New().(UnchangedPlanner)
	if !ok {
		return nil, false
	}
	if private, ok := privateData(req.PriorPrivate); !ok || !planner.PlanUnchanged(private) || !defaultsHold(t.info, req.Config, proposed) {
		return nil, false
	}
	tflog.Trace(ctx, "plan of an unchanged resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState: proposed, PlannedPrivate: req.PriorPrivate, PlannedIdentity: priorIdentity(t.info, req.PriorIdentity),
	}, true
}

// defaultsHold reports whether every attribute with a default is configured
// or holds its default in the proposed state.
func defaultsHold(info *schemaInfo, config, proposed *tfprotov6.DynamicValue) bool {
	if len(info.defaults) == 0 {
		return true
	}
	cfg, err := topLevelScalars(config.MsgPack, info.defaults)
	if err != nil {
		return false
	}
	var prop map[string]any // read only when a default is not configured
	for name, def := range info.defaults {
		if c, ok := cfg[name]; !ok {
			return false
		} else if c != nil {
			continue
		}
		if prop == nil {
			if prop, err = topLevelScalars(proposed.MsgPack, info.defaults); err != nil {
				return false
			}
		}
		if !scalarEquals(def, prop[name]) {
			return false
		}
	}
	return true
}

// scalarEquals compares a string or bool default with a decoded value.
func scalarEquals(def tftypes.Value, v any) bool {
	var s string
	if def.As(&s) == nil {
		return v == s
	}
	var b bool
	return def.As(&b) == nil && v == b
}
