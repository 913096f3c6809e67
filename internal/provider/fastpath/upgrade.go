package fastpath

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if req != nil && !s.off[shortcutUpgrade] {
		if t := s.target(req.TypeName); t != nil {
			if resp, ok := upgradeCurrent(ctx, t, req); ok {
				return resp, nil
			}
		}
	}
	return s.ProviderServer.UpgradeResourceState(ctx, req)
}

// upgradeCurrent answers the upgrade of a state stored with the current
// schema version, which the CLI asks for every resource it refreshes: the
// framework then decodes the stored JSON with the schema's type, ignoring
// attributes the schema no longer has, and encodes it again, without calling
// the resource. So does this, without the framework's conversions around it.
// Another version, a state stored as a flatmap, or JSON that does not decode
// goes to the framework (its upgraders, or its diagnostic).
func upgradeCurrent(ctx context.Context, t *target, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, bool) {
	info := t.info
	if req.RawState == nil || req.RawState.JSON == nil || req.Version != info.schema.GetVersion() {
		return nil, false
	}
	val, err := req.RawState.UnmarshalWithOpts(info.typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return nil, false
	}
	upgraded, err := tfprotov6.NewDynamicValue(info.typ, val)
	if err != nil {
		return nil, false
	}
	tflog.Trace(ctx, "upgrade of a current state answered by the protocol shortcut", map[string]any{"type": req.TypeName})
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &upgraded}, true
}
