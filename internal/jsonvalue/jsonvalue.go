package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// Unknown stands for a value not known until apply (a partial document at
// plan). Every walker treats it as an opaque leaf.
type Unknown struct{}

// MaxDepth bounds how deeply nested a document may be.
const MaxDepth = 1000

// ErrTooDeep is Normalize's error for a document nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("document is nested deeper than %d levels", MaxDepth)

// ErrUnknown is Canonical's error for a document with an Unknown part.
var ErrUnknown = errors.New("document holds an unknown value")

// UnsupportedError is Normalize's error for a Go value outside the model.
type UnsupportedError struct{ Type string }

func (e *UnsupportedError) Error() string {
	return "value of Go type " + e.Type + " is not part of the JSON data model"
}

// Normalize returns a deep copy of v in the data model, which the caller
// owns: Go integers become int64 (a uint64 above the int64 range float64),
// float32 float64, json.Number as the package comment says, []string and
// map[string]string their generic forms. partial reports an Unknown
// anywhere in v.
func Normalize(v any) (out any, partial bool, err error) {
	out, err = normalizeAt(v, 0, &partial)
	return out, partial, err
}

func normalizeAt(v any, depth int, partial *bool) (any, error) {
	if depth > MaxDepth {
		return nil, ErrTooDeep
	}
	switch x := v.(type) {
	case nil, string, bool, int64:
		return x, nil
	case float64:
		if x == 0 {
			return 0.0, nil // -0 is 0
		}
		return x, nil
	case Unknown:
		*partial = true
		return x, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := normalizeAt(e, depth+1, partial)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := normalizeAt(e, depth+1, partial)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, &UnsupportedError{Type: "json.Number (not a number)"}
		}
		return normalizeAt(f, depth, partial)
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
	if n, ok := goNumber(v); ok {
		return n, nil
	}
	return nil, &UnsupportedError{Type: reflect.TypeOf(v).String()}
}

// goNumber reads the Go numeric types other than int64 and float64.
func goNumber(v any) (any, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u), true
		}
		return float64(rv.Uint()), true
	case reflect.Float32:
		return rv.Float(), true
	}
	return nil, false
}

// TypeName names the JSON type of v as JSON Schema does: object, array,
// string, boolean, number or null; "unknown" for Unknown and the Go type
// for a value outside the model.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64, int64:
		return "number"
	case Unknown:
		return "unknown"
	}
	if _, ok := goNumber(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// Equal is deep equality of two documents; numbers compare by value,
// whatever their Go type, so 1 (int64) equals 1.0 (float64).
func Equal(a, b any) bool { return equal(a, b, false) }

// EqualKnown is Equal with an Unknown on either side equal to anything:
// two documents are unequal only when a known part differs.
func EqualKnown(a, b any) bool { return equal(a, b, true) }

func equal(a, b any, unknownMatches bool) bool {
	if unknownMatches {
		_, au := a.(Unknown)
		_, bu := b.(Unknown)
		if au || bu {
			return true
		}
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && maps.EqualFunc(x, y, func(xv, yv any) bool { return equal(xv, yv, unknownMatches) })
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, func(xv, yv any) bool { return equal(xv, yv, unknownMatches) })
	}
	if na, ok := number(a); ok {
		return numbersEqual(na, b)
	}
	return reflect.DeepEqual(a, b)
}

// numbersEqual compares the number na (an int64 or a float64) with b by
// value: two int64 exactly, any other pair as float64.
func numbersEqual(na, b any) bool {
	nb, ok := number(b)
	if !ok {
		return false
	}
	if ia, ok := na.(int64); ok {
		if ib, ok := nb.(int64); ok {
			return ia == ib
		}
	}
	return asFloat(na) == asFloat(nb)
}

// number reads any Go number as an int64 or a float64.
func number(v any) (any, bool) {
	switch x := v.(type) {
	case int64, float64:
		return x, true
	case json.Number:
		n, _, err := Normalize(x)
		return n, err == nil
	}
	return goNumber(v)
}

func asFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	f, _ := v.(float64)
	return f
}

// Canonical is the one encoding of a document: compact, object keys
// sorted, no HTML escaping, numbers as Normalize reads them. Equal
// documents of the same numbers encode to the same bytes. It fails with
// ErrUnknown for a document with an Unknown part, and for a value outside
// the model or a number JSON cannot spell (NaN, the infinities).
func Canonical(v any) ([]byte, error) {
	n, partial, err := Normalize(v)
	if err != nil {
		return nil, err
	}
	if partial {
		return nil, ErrUnknown
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Decode reads exactly one JSON document into the data model.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON document")
	}
	v, _, err := Normalize(v)
	return v, err
}
