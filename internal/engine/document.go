package engine

import (
	"strconv"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// This file holds the operations on documents (settings, values) in the
// engine's data model: normalization with its depth limit, deep copy and
// merge, comparison, the CEL view and scalar rendering.

// maxValueDepth bounds how deeply nested a settings, previous or hook values
// document may be (jsonvalue.Normalize refuses a deeper one), so the
// walkers below need not recurse without bound.
const maxValueDepth = jsonvalue.MaxDepth

// normalize returns a deep copy of v in the JSON data model
// (jsonvalue.Normalize); an Unknown is kept as is.
func normalize(v any) (any, error) {
	n, _, err := jsonvalue.Normalize(v)
	return n, err
}

// deepCopy copies a value already in the engine's data model.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// deepMerge merges src over dst as DP merges its value sources: objects are
// merged key by key, arrays and scalars (and null) replace the earlier value
// whole. dst is changed in place when it is an object; the result must be used.
// src is copied, never aliased.
func deepMerge(dst, src any) any {
	sm, ok := src.(map[string]any)
	if !ok {
		return deepCopy(src)
	}
	dm, ok := dst.(map[string]any)
	if !ok {
		return deepCopy(src)
	}
	for k, sv := range sm {
		if dv, has := dm[k]; has {
			dm[k] = deepMerge(dv, sv)
		} else {
			dm[k] = deepCopy(sv)
		}
	}
	return dm
}

// Merge returns over deep-merged onto base as DP merges its value sources:
// objects merge key by key, arrays, scalars and null replace the earlier
// value whole. Neither input is changed or aliased. The provider uses it to
// lay sensitive_settings over settings.
func Merge(base, over any) any {
	return deepMerge(deepCopy(base), over)
}

// asFloat reports the numeric value of an engine number.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// celView returns a copy of v with every number converted to float64, the
// form DP binds to CEL (numbers are CEL doubles).
func celView(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = celView(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = celView(e)
		}
		return out
	case int64:
		return float64(x)
	}
	return v
}

// scalarString renders a discriminator value as DP compares it: strings as
// is, booleans as "true"/"false", numbers in their shortest decimal form.
func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}
