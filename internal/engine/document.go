package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// This file holds the operations on documents (settings, values) in the
// engine's data model: normalization with its depth limit, deep copy and
// merge, comparison, the CEL view and scalar rendering.

// maxValueDepth bounds how deeply nested a settings, previous or hook values
// document may be. Deeper documents are rejected with one problem instead of
// risking unbounded recursion in the walkers below.
const maxValueDepth = 1000

// errTooDeep is returned by normalize when a document is nested deeper than maxValueDepth.
type errTooDeep struct{ path Path }

func (e *errTooDeep) Error() string {
	return fmt.Sprintf("document is nested deeper than %d levels", maxValueDepth)
}

// errUnsupported is returned by normalize for a Go value outside the JSON data model.
type errUnsupported struct {
	path Path
	typ  string
}

func (e *errUnsupported) Error() string {
	return "value of Go type " + e.typ + " is not part of the JSON data model"
}

// normalize returns a deep copy of v in the engine's data model: map[string]any,
// []any, string, bool, nil, int64 (integral numbers given as Go integers or
// integral json.Number) and float64 (everything else numeric). The caller owns
// the copy, so later stages may change it in place.
// An Unknown is kept as is.
func normalize(v any) (any, error) { return normalizeAt(v, nil, 0, nil) }

// normalizeDoc is normalize for an input document: it also reports whether
// the document holds an Unknown anywhere.
func normalizeDoc(v any) (any, bool, error) {
	var unk bool
	n, err := normalizeAt(v, nil, 0, &unk)
	return n, unk, err
}

func normalizeAt(v any, path Path, depth int, unk *bool) (any, error) {
	if depth > maxValueDepth {
		return nil, &errTooDeep{path: path}
	}
	switch x := v.(type) {
	case nil, string, bool, float64, int64:
		return x, nil
	case Unknown:
		if unk != nil {
			*unk = true
		}
		return x, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := normalizeAt(e, path, depth+1, unk)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := normalizeAt(e, path, depth+1, unk)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint:
		return uintToNumber(uint64(x)), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		return uintToNumber(x), nil
	case float32:
		return float64(x), nil
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, &errUnsupported{path: path, typ: "json.Number (not a number)"}
		}
		return f, nil
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	}
	return nil, &errUnsupported{path: path, typ: reflect.TypeOf(v).String()}
}

func uintToNumber(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
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

// valuesEqual compares two values of the engine's data model; numbers compare
// by value, so 1 (int64) equals 1.0 (float64).
func valuesEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, has := y[k]
			if !has || !valuesEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	}
	if fa, ok := asFloat(a); ok {
		fb, ok := asFloat(b)
		return ok && fa == fb
	}
	return a == b
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
