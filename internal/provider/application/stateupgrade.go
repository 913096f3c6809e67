package application

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// stateVersion is the schema version of the resource's state:
//
//	0  status with every condition; last_applied_settings always DP's record
//	1  status without conditions (the data sources carry them);
//	   last_applied_settings null when it equals effective_settings
//	   (lastAppliedStored)
const stateVersion = 1

var _ resource.ResourceWithUpgradeState = &Resource{}

// UpgradeState upgrades each earlier version of the state to stateVersion.
// A state of the current version does not come here (the framework, or the
// protocol shortcut, answers it).
func (r *Resource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: r.upgradeFromV0}}
}

// upgradeFromV0 rewrites a version 0 state as version 1: the stored JSON
// loses status.conditions, and last_applied_settings becomes null where it
// holds the same document as effective_settings. The rest is decoded with
// the current schema's type as stored.
func (r *Resource) upgradeFromV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	if req.RawState == nil || req.RawState.JSON == nil {
		resp.Diagnostics.AddError("Cannot upgrade the state of deckhouse_application",
			"The stored state of schema version 0 is not JSON; it cannot be upgraded. Remove it from the state and import the Application again.")
		return
	}
	raw, err := upgradeV0JSON(req.RawState.JSON)
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade the state of deckhouse_application",
			fmt.Sprintf("The stored state of schema version 0 does not decode: %s. Remove it from the state and import the Application again.", err))
		return
	}
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx)
	val, err := (&tfprotov6.RawState{JSON: raw}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err == nil {
		var dv tfprotov6.DynamicValue
		if dv, err = tfprotov6.NewDynamicValue(typ, val); err == nil {
			resp.DynamicValue = &dv
			return
		}
	}
	resp.Diagnostics.AddError("Cannot upgrade the state of deckhouse_application",
		fmt.Sprintf("The stored state of schema version 0 does not fit the schema: %s. Remove it from the state and import the Application again.", err))
}

// upgradeV0JSON is the JSON of a version 0 state as version 1 stores it.
// Every other member is kept byte for byte.
func upgradeV0JSON(raw []byte) ([]byte, error) {
	var state map[string]json.RawMessage
	if err := json.Unmarshal(raw, &state); err != nil {
		return nil, err
	}
	if s := state["status"]; s != nil && !bytes.Equal(s, []byte("null")) {
		var status map[string]json.RawMessage
		if err := json.Unmarshal(s, &status); err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
		delete(status, "conditions")
		b, err := json.Marshal(status)
		if err != nil {
			return nil, err
		}
		state["status"] = b
	}
	if sameDynamicJSON(state["last_applied_settings"], state["effective_settings"]) {
		state["last_applied_settings"] = json.RawMessage("null")
	}
	return json.Marshal(state)
}

// sameDynamicJSON reports whether two dynamic values as a state stores them
// ({"value": …, "type": …}), neither null, hold the same document.
func sameDynamicJSON(a, b json.RawMessage) bool {
	value := func(raw json.RawMessage) (any, bool) {
		var dyn struct {
			Value json.RawMessage `json:"value"`
		}
		if len(raw) == 0 || json.Unmarshal(raw, &dyn) != nil || len(dyn.Value) == 0 || bytes.Equal(dyn.Value, []byte("null")) {
			return nil, false
		}
		dec := json.NewDecoder(bytes.NewReader(dyn.Value))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil, false
		}
		return v, true
	}
	av, aok := value(a)
	bv, bok := value(b)
	return aok && bok && jsonEqual(av, bv)
}
