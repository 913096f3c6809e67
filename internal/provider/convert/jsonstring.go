package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// ToJSONString encodes a JSON data model value as a string attribute holding
// one compact JSON document: object keys sorted, no HTML escaping, numbers
// as FromDynamic gives them (an integral number as an integer). One document
// has one encoding whatever it came from (the engine's defaults, DP's
// record, a stored state), so equal documents are equal strings. nil is a
// null string; a value with an engine.Unknown part is an unknown string.
func ToJSONString(v any) types.String {
	if v == nil {
		return types.StringNull()
	}
	b, known := CanonicalJSON(v)
	if !known {
		return types.StringUnknown()
	}
	return types.StringValue(string(b))
}

// FromJSONString decodes a string attribute of ToJSONString into the JSON
// data model. A null string is nil; known is false for an unknown string.
func FromJSONString(s types.String) (val any, known bool, err error) {
	if s.IsUnknown() {
		return nil, false, nil
	}
	if s.IsNull() {
		return nil, true, nil
	}
	val, err = DecodeJSON([]byte(s.ValueString()))
	return val, true, err
}

// DecodeJSON decodes one JSON document into the JSON data model, numbers as
// FromDynamic gives them.
func DecodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON document")
	}
	v, _ = normalize(v)
	return v, nil
}

// CanonicalJSON is the encoding ToJSONString stores. known is false when v
// holds an engine.Unknown part.
func CanonicalJSON(v any) ([]byte, bool) {
	n, known := normalize(v)
	if !known {
		return nil, false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(n); err != nil {
		// normalize leaves only types encoding/json encodes.
		panic("convert: cannot encode a normalized document: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

// normalize returns v with every number as FromDynamic(ToDynamic(v)) gives
// it (int64 or float64) and every other value as ToDynamic reads it.
func normalize(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return x, true
	case engine.Unknown:
		return nil, false
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint64:
		return bigToJSON(new(big.Float).SetUint64(x)), true
	case float32:
		return normalize(float64(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x), true
		}
		return bigToJSON(big.NewFloat(x)), true
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 512, big.ToNearestEven)
		if err != nil {
			return string(x), true
		}
		return bigToJSON(f), true
	case map[string]any:
		out := make(map[string]any, len(x))
		known := true
		for k, e := range x {
			var ok bool
			out[k], ok = normalize(e)
			known = known && ok
		}
		return out, known
	case []any:
		out := make([]any, len(x))
		known := true
		for i, e := range x {
			var ok bool
			out[i], ok = normalize(e)
			known = known && ok
		}
		return out, known
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, true
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out, true
	}
	return fmt.Sprint(v), true
}
