package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"
)

func (s *protocolServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if req != nil && req.TypeName == applicationTypeName {
		if resp, ok := upgradeCurrentState(ctx, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.UpgradeResourceState(ctx, req)
}

// upgradeCurrentState answers OpenTofu's request, made for every resource of
// every plan, to turn a state stored in JSON with the current schema version
// into the protocol's MessagePack. The framework decodes it into values with
// a token-by-token JSON reader and parses the type of every dynamic value
// again; here the JSON is decoded once, the types of dynamic values are
// parsed once per distinct type, and the values are written directly, with
// the framework's rules: attributes the schema does not know are dropped,
// missing ones are null, numbers are encoded as tftypes encodes them. Any
// value that does not match its type goes to the framework, which reports it.
func upgradeCurrentState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, bool) {
	info := applicationSchemaInfo(ctx)
	if info.err != nil || req.RawState == nil || len(req.RawState.JSON) == 0 || req.Version != info.schema.GetVersion() {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(req.RawState.JSON))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil || dec.More() {
		return nil, false
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	if err := transcode(enc, doc, info.typ); err != nil {
		return nil, false
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{MsgPack: buf.Bytes()}}, true
}

var errShape = errors.New("value does not match its type")

// transcode writes v, decoded from JSON with UseNumber, as the MessagePack
// encoding tftypes gives the value of type typ.
func transcode(enc *msgpack.Encoder, v any, typ tftypes.Type) error {
	if typ.Is(tftypes.DynamicPseudoType) {
		return transcodeDynamic(enc, v)
	}
	if v == nil {
		return enc.EncodeNil()
	}
	switch {
	case typ.Is(tftypes.String):
		s, ok := v.(string)
		if !ok {
			return errShape
		}
		return enc.EncodeString(s)
	case typ.Is(tftypes.Bool):
		b, ok := v.(bool)
		if !ok {
			return errShape
		}
		return enc.EncodeBool(b)
	case typ.Is(tftypes.Number):
		return transcodeNumber(enc, v)
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}):
		var elem tftypes.Type
		if l, ok := typ.(tftypes.List); ok {
			elem = l.ElementType
		} else if s, ok := typ.(tftypes.Set); ok {
			elem = s.ElementType
		}
		items, ok := v.([]any)
		if !ok || elem == nil {
			return errShape
		}
		if err := enc.EncodeArrayLen(len(items)); err != nil {
			return err
		}
		for _, it := range items {
			if err := transcode(enc, it, elem); err != nil {
				return err
			}
		}
		return nil
	case typ.Is(tftypes.Tuple{}):
		t, _ := typ.(tftypes.Tuple)
		items, ok := v.([]any)
		if !ok || len(items) != len(t.ElementTypes) {
			return errShape
		}
		if err := enc.EncodeArrayLen(len(items)); err != nil {
			return err
		}
		for i, it := range items {
			if err := transcode(enc, it, t.ElementTypes[i]); err != nil {
				return err
			}
		}
		return nil
	case typ.Is(tftypes.Map{}):
		m, _ := typ.(tftypes.Map)
		obj, ok := v.(map[string]any)
		if !ok {
			return errShape
		}
		if err := enc.EncodeMapLen(len(obj)); err != nil {
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := enc.EncodeString(k); err != nil {
				return err
			}
			if err := transcode(enc, obj[k], m.ElementType); err != nil {
				return err
			}
		}
		return nil
	case typ.Is(tftypes.Object{}):
		o, _ := typ.(tftypes.Object)
		obj, ok := v.(map[string]any)
		if !ok || len(o.OptionalAttributes) > 0 {
			return errShape
		}
		names := slices.Sorted(maps.Keys(o.AttributeTypes))
		if err := enc.EncodeMapLen(len(names)); err != nil {
			return err
		}
		for _, k := range names {
			if err := enc.EncodeString(k); err != nil {
				return err
			}
			if err := transcode(enc, obj[k], o.AttributeTypes[k]); err != nil {
				return err
			}
		}
		return nil
	}
	return errShape
}

// transcodeDynamic writes a dynamic value, {"value": ..., "type": ...} in
// JSON, as tftypes does: the type's JSON and the value, or nil.
func transcodeDynamic(enc *msgpack.Encoder, v any) error {
	if v == nil {
		return enc.EncodeNil()
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 2 {
		return errShape
	}
	rawType, hasType := obj["type"]
	val, hasValue := obj["value"]
	if !hasType || !hasValue {
		return errShape
	}
	typeJSON, typ, err := dynamicType(rawType)
	if err != nil {
		return err
	}
	if err := enc.EncodeArrayLen(2); err != nil {
		return err
	}
	if err := enc.EncodeBytes(typeJSON); err != nil {
		return err
	}
	return transcode(enc, val, typ)
}

// dynamicTypes caches parsed types of dynamic values by their JSON: the
// settings documents of many Applications share a few shapes.
var dynamicTypes sync.Map // string -> parsedType

type parsedType struct {
	json []byte
	typ  tftypes.Type
}

// dynamicTypeCacheLimit bounds the cache; past it types are parsed each time.
const dynamicTypeCacheLimit = 4096

var dynamicTypeEntries atomic.Int64

func dynamicType(raw any) ([]byte, tftypes.Type, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, nil, err
	}
	if p, ok := dynamicTypes.Load(string(b)); ok {
		pt, _ := p.(parsedType)
		return pt.json, pt.typ, nil
	}
	typ, err := tftypes.ParseJSONType(b) //nolint:staticcheck // the type format of dynamic values in state
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errShape, err)
	}
	if dynamicTypeEntries.Load() < dynamicTypeCacheLimit {
		if _, loaded := dynamicTypes.LoadOrStore(string(b), parsedType{json: b, typ: typ}); !loaded {
			dynamicTypeEntries.Add(1)
		}
	}
	return b, typ, nil
}

// transcodeNumber writes a JSON number (or a number in a string) as tftypes
// writes a Number: an exact int64, else an exact non-integer float64, else
// the decimal text.
func transcodeNumber(enc *msgpack.Encoder, v any) error {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case string:
		s = n
	default:
		return errShape
	}
	f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	if err != nil {
		return fmt.Errorf("%w: %w", errShape, err)
	}
	if f.IsInf() {
		return errShape
	}
	if i, acc := f.Int64(); acc == big.Exact {
		return enc.EncodeInt(i)
	}
	if fv, acc := f.Float64(); acc == big.Exact && !f.IsInt() {
		return enc.EncodeFloat64(fv)
	}
	return enc.EncodeString(f.Text('f', -1))
}
