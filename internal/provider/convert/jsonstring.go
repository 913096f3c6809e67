package convert

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// ToJSONString encodes a JSON data model value as a string attribute holding
// its canonical document (jsonvalue.Canonical): one document has one
// encoding whatever it came from (the engine's defaults, DP's record, a
// stored state), so equal documents are equal strings. nil is a null
// string; a value with an engine.Unknown part is an unknown string. A
// value with no JSON encoding (the engine refuses such settings before)
// is a null string.
func ToJSONString(v any) types.String {
	if v == nil {
		return types.StringNull()
	}
	b, err := jsonvalue.Canonical(v)
	if errors.Is(err, jsonvalue.ErrUnknown) {
		return types.StringUnknown()
	}
	if err != nil {
		return types.StringNull()
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
	val, err = jsonvalue.Decode([]byte(s.ValueString()))
	return val, true, err
}
