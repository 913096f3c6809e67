package application

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// stateVersion is the schema version of the resource's state:
//
//	0  status with every condition; last_applied_settings always DP's record
//	1  status without conditions (the data sources carry them);
//	   last_applied_settings null when it equals effective_settings
//	   (lastAppliedStored)
//	2  effective_settings and last_applied_settings one compact JSON string
//	   each (convert.ToJSONString) instead of a dynamic value, which the
//	   state stores with its whole type beside the value
const stateVersion = 2

var _ resource.ResourceWithUpgradeState = &Resource{}

// UpgradeState upgrades each earlier version of the state to stateVersion.
// A state of the current version does not come here (the framework, or the
// protocol shortcut, answers it).
func (r *Resource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {StateUpgrader: r.upgrader(0, func(raw []byte) ([]byte, error) {
			v1, err := upgradeV0JSON(raw)
			if err != nil {
				return nil, err
			}
			return upgradeV1JSON(v1)
		})},
		1: {StateUpgrader: r.upgrader(1, upgradeV1JSON)},
	}
}

// upgrader rewrites the stored JSON of a state of version from as the
// current version stores it (rewrite), then decodes it with the current
// schema's type.
func (r *Resource) upgrader(from int, rewrite func([]byte) ([]byte, error)) func(context.Context, resource.UpgradeStateRequest, *resource.UpgradeStateResponse) {
	return func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		if req.RawState == nil || req.RawState.JSON == nil {
			resp.Diagnostics.AddError("Cannot upgrade the state of deckhouse_application",
				fmt.Sprintf("The stored state of schema version %d is not JSON; it cannot be upgraded. Remove it from the state and import the Application again.", from))
			return
		}
		raw, err := rewrite(req.RawState.JSON)
		if err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the state of deckhouse_application",
				fmt.Sprintf("The stored state of schema version %d does not decode: %s. Remove it from the state and import the Application again.", from, err))
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
			fmt.Sprintf("The stored state of schema version %d does not fit the schema: %s. Remove it from the state and import the Application again.", from, err))
	}
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
		doc, err := dynamicValueJSON(raw)
		if err != nil || doc == nil {
			return nil, false
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil, false
		}
		return v, true
	}
	av, aok := value(a)
	bv, bok := value(b)
	return aok && bok && jsonvalue.Equal(av, bv)
}

// dynamicValueJSON is the JSON of the value of a dynamic value as a state
// stores it ({"value": …, "type": …}); nil when either is null or absent.
func dynamicValueJSON(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var dyn struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &dyn); err != nil {
		return nil, err
	}
	if len(dyn.Value) == 0 || bytes.Equal(dyn.Value, []byte("null")) {
		return nil, nil
	}
	return dyn.Value, nil
}

// upgradeV1JSON is the JSON of a version 1 state as version 2 stores it:
// effective_settings and last_applied_settings, stored as dynamic values
// ({"value": …, "type": …}), become the JSON string of their value. Every
// other member is kept byte for byte.
func upgradeV1JSON(raw []byte) ([]byte, error) {
	var state map[string]json.RawMessage
	if err := json.Unmarshal(raw, &state); err != nil {
		return nil, err
	}
	for _, name := range []string{"effective_settings", "last_applied_settings"} {
		s, err := dynamicAsJSONString(state[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		state[name] = s
	}
	return json.Marshal(state)
}

// dynamicAsJSONString is a dynamic value as a state stores it, as the JSON
// of a string attribute holding its value's document (null for null).
func dynamicAsJSONString(raw json.RawMessage) (json.RawMessage, error) {
	value, err := dynamicValueJSON(raw)
	if err != nil || value == nil {
		return json.RawMessage("null"), err
	}
	v, err := jsonvalue.Decode(value)
	if err != nil {
		return nil, err
	}
	doc, err := jsonvalue.Canonical(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(string(doc))
}
