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
	if req != nil && !s.off[shortcutUpgrade] {
		if t := s.target(req.TypeName); t != nil {
			if resp, ok := upgradeCurrent(ctx, t, req); ok {
				return resp, nil
			}
		}
	}
	return s.ProviderServerWithListResource.UpgradeResourceState(ctx, req)
}

// upgradeCurrent answers the upgrade of a state stored with the current
// schema version, which the CLI asks for every resource it refreshes: the
// framework then decodes the stored JSON with the schema's type, ignoring
// attributes the schema no longer has, and encodes it again, without calling
// the resource. The stored JSON is the CLI's own encoding of such a value,
// which the CLI decodes from an upgraded state given as JSON, attributes it
// lacks as null, like the framework: when every attribute it holds, at every
// level, is one the schema has (jsonFits), the answer is that JSON, unread.
// Otherwise this decodes and encodes it as the framework does, without the
// framework's conversions around it.
// Another version, a state stored as a flatmap, or JSON that does not decode
// goes to the framework (its upgraders, or its diagnostic).
func upgradeCurrent(ctx context.Context, t *target, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, bool) {
	info := t.info
	if req.RawState == nil || req.RawState.JSON == nil || req.Version != info.schema.GetVersion() {
		return nil, false
	}
	if jsonFits(req.RawState.JSON, info.typ) {
		tflog.Trace(ctx, "upgrade of a current state answered by the protocol shortcut with the stored JSON", map[string]any{"type": req.TypeName})
		return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{JSON: req.RawState.JSON}}, true
	}
	val, err := req.RawState.UnmarshalWithOpts(info.typ, upgradeOptions)
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

// jsonFits reports whether a JSON state holds only attributes typ has, at
// every object level typ describes, and values of the kinds typ says (a
// dynamic value is not looked into: it carries its own type).
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
	if err != nil {
		return false
	}
	if tok == nil {
		return true
	}
	switch t := typ.(type) {
	case tftypes.Object:
		return delim(tok, '{') && membersFit(dec, func(k string) (tftypes.Type, bool) {
			at, ok := t.AttributeTypes[k]
			return at, ok
		})
	case tftypes.Map:
		return delim(tok, '{') && membersFit(dec, func(string) (tftypes.Type, bool) { return t.ElementType, true })
	case tftypes.List:
		return delim(tok, '[') && elementsFit(dec, func(int) (tftypes.Type, bool) { return t.ElementType, true })
	case tftypes.Set:
		return delim(tok, '[') && elementsFit(dec, func(int) (tftypes.Type, bool) { return t.ElementType, true })
	case tftypes.Tuple:
		return delim(tok, '[') && elementsFit(dec, func(i int) (tftypes.Type, bool) {
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

func delim(tok json.Token, d json.Delim) bool {
	got, ok := tok.(json.Delim)
	return ok && got == d
}

// membersFit reads the members of an object up to its closing brace.
func membersFit(dec *json.Decoder, typeOf func(string) (tftypes.Type, bool)) bool {
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return false
		}
		typ, ok := typeOf(key)
		if !ok || !valueFits(dec, typ) {
			return false
		}
	}
	tok, err := dec.Token()
	return err == nil && delim(tok, '}')
}

// elementsFit reads the elements of an array up to its closing bracket.
func elementsFit(dec *json.Decoder, typeOf func(int) (tftypes.Type, bool)) bool {
	for i := 0; dec.More(); i++ {
		typ, ok := typeOf(i)
		if !ok || !valueFits(dec, typ) {
			return false
		}
	}
	tok, err := dec.Token()
	return err == nil && delim(tok, ']')
}
