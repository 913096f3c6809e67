package protocol

import (
	"bytes"
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if t := s.target(reqTypeName(req)); t != nil {
		if !s.off[shortcutPlanUnchanged] {
			if resp, ok := planUnchanged(ctx, t, req); ok {
				return resp, nil
			}
		}
		if !s.off[shortcutPlanCreate] {
			if resp, ok := s.planCreate(ctx, t, req); ok {
				return resp, nil
			}
		}
	}
	return s.ProviderServerWithListResource.PlanResourceChange(ctx, req)
}

func reqTypeName(req *tfprotov6.PlanResourceChangeRequest) string {
	if req == nil {
		return ""
	}
	return req.TypeName
}

// planCreate plans a new resource with the framework's steps for a
// resource without prior state (createPlan), then the resource's own
// ModifyPlan, as the framework calls it. Once Configure has run, the answer
// is the shortcut's, diagnostics, replacements and deferral included
// (planResponse): handing the call on would run ModifyPlan, and the reads
// and verdicts in it, a second time.
func (s *server) planCreate(ctx context.Context, t *target, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	proposed, config := req.ProposedNewState, req.Config
	if req.PriorState == nil || !isMsgPackNil(req.PriorState.MsgPack) ||
		len(req.PriorPrivate) > 0 || (req.PriorIdentity != nil && req.PriorIdentity.IdentityData != nil && !isMsgPackNil(req.PriorIdentity.IdentityData.MsgPack)) ||
		(req.ProviderMeta != nil && len(req.ProviderMeta.MsgPack) > 0 && !isMsgPackNil(req.ProviderMeta.MsgPack)) ||
		proposed == nil || config == nil || len(proposed.JSON) > 0 || len(config.JSON) > 0 ||
		len(proposed.MsgPack) == 0 || isMsgPackNil(proposed.MsgPack) {
		return nil, false
	}
	info := t.info
	cfgVal, err := config.Unmarshal(info.typ)
	if err != nil {
		return nil, false
	}
	var cfg map[string]tftypes.Value
	if cfgVal.As(&cfg) != nil {
		return nil, false
	}
	plan, err := objectAttributes(proposed, info.typ)
	if err != nil || !createPlan(info, cfg, plan) {
		return nil, false
	}
	r, cdiags, ok := s.configure(ctx, t)
	if !ok {
		return nil, false
	}
	modifier, ok := r.(resource.ResourceWithModifyPlan)
	if !ok {
		return nil, false // t.New returned another type
	}
	if cdiags.HasError() {
		tflog.Trace(ctx, "plan of a new resource answered by the protocol shortcut: Configure failed", map[string]any{"type": req.TypeName})
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: configureFailed(ctx, cdiags)}, true
	}
	mreq, mresp := modifyPlanRequest(info, req.ClientCapabilities, cfgVal, tftypes.NewValue(info.typ, plan), cdiags)
	modifier.ModifyPlan(ctx, mreq, mresp)
	tflog.Trace(ctx, "plan of a new resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return planResponse(ctx, info, mresp), true
}

// planUnchanged answers the plan of an existing resource when the proposed
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
//   - ModifyPlan leaves a plan equal to the prior state alone, unless the
//     resource's PlanUnchanged says its private data asks for more (an
//     update not applied yet, for example); a resource that does not
//     implement UnchangedPlanner is left to the framework.
//
// So the answer is the prior state, private data and identity, unchanged
// (the null identity when the client sent none, as the framework answers).
func planUnchanged(ctx context.Context, t *target, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	prior, proposed, config := req.PriorState, req.ProposedNewState, req.Config
	if prior == nil || proposed == nil || config == nil ||
		len(prior.JSON) > 0 || len(proposed.JSON) > 0 || len(config.JSON) > 0 ||
		len(prior.MsgPack) == 0 || isMsgPackNil(prior.MsgPack) ||
		!bytes.Equal(prior.MsgPack, proposed.MsgPack) {
		return nil, false
	}
	planner, ok := t.New().(UnchangedPlanner)
	if !ok {
		return nil, false
	}
	if private, ok := privateData(req.PriorPrivate); !ok || !planner.PlanUnchanged(private) {
		return nil, false
	}
	if info := t.info; len(info.defaults) > 0 && !defaultsHold(info, config, proposed) {
		return nil, false
	}
	identity, ok := priorIdentity(t.info, req.PriorIdentity)
	if !ok {
		return nil, false
	}
	tflog.Trace(ctx, "plan of an unchanged resource answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState:    proposed,
		PlannedPrivate:  req.PriorPrivate,
		PlannedIdentity: identity,
	}, true
}

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
