package protocol

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if t := s.target(req.TypeName); t != nil && !s.off[shortcutUpgrade] {
		if resp, ok := upgradeCurrent(ctx, t, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServerWithListResource.UpgradeResourceState(ctx, req)
}

// upgradeCurrent answers the upgrade of a state of the current schema
// version, asked for every resource a CLI refreshes, with its JSON, unread,
// when every attribute it holds, at every level, is one the schema has
// (jsonFits): the framework would decode it with the schema's type and
// encode it again, and the CLIs decode a JSON answer as it does. Any other
// state goes to the framework.
func upgradeCurrent(ctx context.Context, t *target, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, bool) {
	info := t.info
	if req.RawState == nil || req.RawState.JSON == nil || req.Version != info.schema.GetVersion() || !jsonFits(req.RawState.JSON, info.typ) {
		return nil, false
	}
	tflog.Trace(ctx, "upgrade of a current state answered by the protocol shortcut with the stored JSON", map[string]any{"type": req.TypeName})
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{JSON: req.RawState.JSON}}, true
}

// jsonFits reports whether JSON holds only attributes and values of the
// kinds typ has (a dynamic value carries its own type).
func jsonFits(raw []byte, typ tftypes.Type) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if !valueFits(dec, typ) {
		return false
	}
	_, err := dec.Token()
	return err != nil // nothing after the value
}

func valueFits(dec *json.Decoder, typ tftypes.Type) bool {
	if typ.Is(tftypes.DynamicPseudoType) {
		var skip json.RawMessage
		return dec.Decode(&skip) == nil
	}
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return err == nil
	}
	elem := func(t tftypes.Type) func(string, int) (tftypes.Type, bool) {
		return func(string, int) (tftypes.Type, bool) { return t, true }
	}
	switch t := typ.(type) {
	case tftypes.Object:
		return tok == json.Delim('{') && itemsFit(dec, true, func(k string, _ int) (tftypes.Type, bool) {
			at, ok := t.AttributeTypes[k]
			return at, ok
		})
	case tftypes.Map:
		return tok == json.Delim('{') && itemsFit(dec, true, elem(t.ElementType))
	case tftypes.List:
		return tok == json.Delim('[') && itemsFit(dec, false, elem(t.ElementType))
	case tftypes.Set:
		return tok == json.Delim('[') && itemsFit(dec, false, elem(t.ElementType))
	case tftypes.Tuple:
		return tok == json.Delim('[') && itemsFit(dec, false, func(_ string, i int) (tftypes.Type, bool) {
			if i >= len(t.ElementTypes) {
				return nil, false
			}
			return t.ElementTypes[i], true
		})
	}
	switch tok.(type) {
	case string:
		return typ.Is(tftypes.String)
	case bool:
		return typ.Is(tftypes.Bool)
	case json.Number:
		return typ.Is(tftypes.Number)
	}
	return false
}

// itemsFit reads the members of an object (keyed) or the elements of an
// array up to its closing delimiter, each of the type typeOf gives.
func itemsFit(dec *json.Decoder, keyed bool, typeOf func(key string, i int) (tftypes.Type, bool)) bool {
	for i := 0; dec.More(); i++ {
		var key string
		if keyed {
			tok, err := dec.Token()
			k, ok := tok.(string)
			if err != nil || !ok {
				return false
			}
			key = k
		}
		typ, ok := typeOf(key, i)
		if !ok || !valueFits(dec, typ) {
			return false
		}
	}
	_, err := dec.Token() // the closing delimiter, which the decoder matches with the opening one
	return err == nil
}
