package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// Publishing, as DP's ParsePackageSchemas does it: the schema is decoded
// into a typed Go struct and encoded again. So the published schema holds
// exactly the keys the struct has a field for (draft-4/OpenAPI-3.0
// keywords, $schema, $ref and definitions, tuple items and additionalItems,
// dependencies, example, externalDocs, and the x-deckhouse-* extensions
// of the table in extensions.go); every other key is dropped (const, $defs, deprecated,
// readOnly, writeOnly, x-extend, x-doc-*, unknown keys inside a validation
// rule or a switch item, ...); a false flag, an empty string, list or map
// and a null are omitted. A value of a kept key of the wrong type fails the
// decode: DP never publishes that package version, and neither does the
// engine load it. An OpenAPI-3 discriminator object fails DP's runtime
// (go-openapi wants a string there) and is refused too, with that reason.

// pubKind is the Go type of one published key.
type pubKind int

const (
	pubString       pubKind = iota // string
	pubType                        // string or list of strings
	pubJSON                        // any JSON value (null omitted)
	pubNumber                      // float64
	pubInt                         // int64
	pubFlag                        // bool, false omitted
	pubList                        // list of JSON values
	pubStrings                     // list of strings
	pubSchema                      // one schema
	pubSchemaOrList                // items: a schema or a list of schemas
	pubSchemaOrBool                // additionalProperties, additionalItems
	pubSchemaList                  // allOf, anyOf, oneOf
	pubSchemaMap                   // properties, patternProperties, definitions
	pubDependencies                // a schema or a list of strings per name
	pubExternalDocs                // {description, url}
	pubValidations                 // x-deckhouse-validations
	pubResourceName                // x-deckhouse-ui-resource-name
	pubSwitches                    // x-deckhouse-enum-switch-settings
)

// publishedKeys are the keys of DP's typed schema struct: the standard
// keywords and the extensions of the table that DP publishes.
var publishedKeys = withPublishedExtensions(map[string]pubKind{
	"id": pubString, "$schema": pubString, "$ref": pubString, "description": pubString, "type": pubType,
	"format": pubString, "title": pubString, "default": pubJSON, "maximum": pubNumber, "exclusiveMaximum": pubFlag,
	"minimum": pubNumber, "exclusiveMinimum": pubFlag, "maxLength": pubInt, "minLength": pubInt, "pattern": pubString,
	"maxItems": pubInt, "minItems": pubInt, "uniqueItems": pubFlag, "multipleOf": pubNumber, "enum": pubList,
	"maxProperties": pubInt, "minProperties": pubInt, "required": pubStrings, "items": pubSchemaOrList,
	"allOf": pubSchemaList, "oneOf": pubSchemaList, "anyOf": pubSchemaList, "not": pubSchema,
	"properties": pubSchemaMap, "additionalProperties": pubSchemaOrBool, "patternProperties": pubSchemaMap,
	"dependencies": pubDependencies, "additionalItems": pubSchemaOrBool, "definitions": pubSchemaMap,
	"externalDocs": pubExternalDocs, "example": pubJSON, "nullable": pubFlag,
})

func withPublishedExtensions(keys map[string]pubKind) map[string]pubKind {
	for _, e := range extensions {
		if e.decode != pubDropped {
			keys[e.name] = e.decode
		}
	}
	return keys
}

// notPublished is the phrase every publishing error ends with.
const notPublished = "DP will not publish this package version"

// notLoadable ends the error of a schema DP publishes but its runtime
// refuses.
const notLoadable = "DP cannot install this package version"

// publisher is one typed decode of a schema file.
type publisher struct {
	file string
	errs []*SchemaError // every wrongly typed value, in walk order
}

// publish returns the published form of a loaded schema (before $ref
// resolution, x-extend merge or closing) as canonical JSON: sorted keys,
// no HTML escaping, stable bytes. A wrongly typed value is a *SchemaError
// naming the file and the schema path.
func publish(file string, raw map[string]any) ([]byte, error) {
	p := &publisher{file: file}
	out := p.node(raw, "", 0)
	if len(p.errs) > 0 {
		return nil, p.errs[0]
	}
	return jsonvalue.Canonical(out)
}

// publishErrors lists every value of raw that DP's typed decode refuses.
func publishErrors(file string, raw map[string]any) []*SchemaError {
	p := &publisher{file: file}
	p.node(raw, "", 0)
	return p.errs
}

func (p *publisher) fail(ptr, format string, args ...any) {
	p.errs = append(p.errs, &SchemaError{File: p.file, SchemaPath: ptr, Message: fmt.Sprintf(format, args...) + ": " + notPublished})
}

// node decodes one schema object at ptr.
func (p *publisher) node(n map[string]any, ptr string, depth int) map[string]any {
	out := map[string]any{}
	if depth > maxDepth {
		p.fail(ptr, "schema nesting is too deep")
		return out
	}
	if d, ok := n["discriminator"]; ok {
		if _, isStr := d.(string); !isStr && d != nil {
			p.errs = append(p.errs, &SchemaError{File: p.file, SchemaPath: ptr + "/discriminator",
				Message: "an OpenAPI 3 discriminator object cannot be loaded by DP's runtime, which wants a string there " +
					"(\"cannot unmarshal object into ... discriminator of type string\"): " + notLoadable})
		}
	}
	for _, k := range sortedKeys(n) {
		kind, kept := publishedKeys[k]
		if !kept || n[k] == nil {
			continue
		}
		if v, ok := p.value(kind, n[k], ptr+"/"+escapePointer(k), k, depth); ok {
			out[k] = v
		}
	}
	return out
}

// value decodes the value v of key k; ok is false when it is omitted.
func (p *publisher) value(kind pubKind, v any, ptr, k string, depth int) (any, bool) {
	switch kind {
	case pubString:
		s, ok := v.(string)
		if !ok {
			p.fail(ptr, "%s must be a string, got %s", k, jsonvalue.TypeName(v))
		}
		return s, s != ""
	case pubType:
		return p.typeValue(v, ptr)
	case pubJSON:
		return v, true
	case pubNumber:
		if _, ok := asFloat(v); !ok {
			p.fail(ptr, "%s must be a number, got %s", k, jsonvalue.TypeName(v))
			return nil, false
		}
		return v, true
	case pubInt:
		return p.intValue(v, ptr, k)
	case pubFlag:
		b, ok := v.(bool)
		if !ok {
			p.fail(ptr, "%s must be a boolean (true or false), got %s", k, describeValue(v))
		}
		return b, b
	case pubList:
		l, ok := v.([]any)
		if !ok {
			p.fail(ptr, "%s must be a list, got %s", k, jsonvalue.TypeName(v))
		}
		return l, len(l) > 0
	case pubStrings:
		l := p.strings(v, ptr, k)
		return l, len(l) > 0
	}
	return p.compound(kind, v, ptr, k, depth)
}

// compound decodes the values that hold schemas or structured extensions.
func (p *publisher) compound(kind pubKind, v any, ptr, k string, depth int) (any, bool) {
	switch kind {
	case pubSchema:
		return p.schema(v, ptr, depth), true
	case pubSchemaOrList:
		// Neither a schema nor a list: DP's decoder keeps nothing.
		switch x := v.(type) {
		case []any:
			return p.schemaList(x, ptr, depth), true
		case map[string]any:
			return p.schema(x, ptr, depth), true
		}
		return nil, false
	case pubSchemaOrBool:
		switch x := v.(type) {
		case bool:
			return x, true
		case map[string]any:
			return p.schema(x, ptr, depth), true
		}
		p.fail(ptr, "%s must be a boolean or a schema, got %s", k, jsonvalue.TypeName(v))
		return nil, false
	case pubSchemaList:
		l, ok := v.([]any)
		if !ok {
			p.fail(ptr, "%s must be a list of schemas, got %s", k, jsonvalue.TypeName(v))
		}
		return p.schemaList(l, ptr, depth), len(l) > 0
	case pubSchemaMap:
		return p.schemaMap(v, ptr, k, depth, false)
	case pubDependencies:
		return p.schemaMap(v, ptr, k, depth, true)
	case pubExternalDocs:
		return p.object(v, ptr, k, map[string]pubKind{"description": pubString, "url": pubString})
	case pubValidations:
		return p.items(v, ptr, k, map[string]pubKind{"expression": pubString, "message": pubString,
			"messageExpression": pubString, "reason": pubString, "fieldPath": pubString})
	case pubResourceName:
		return p.resourceName(v, ptr, k)
	case pubSwitches:
		return p.items(v, ptr, k, map[string]pubKind{"to": pubStrings, "impact": pubString, "messages": pubStringMap})
	case pubStringMap:
		m, ok := v.(map[string]any)
		if !ok {
			p.fail(ptr, "%s must be a map of strings, got %s", k, jsonvalue.TypeName(v))
			return nil, false
		}
		for _, name := range sortedKeys(m) {
			if _, isStr := m[name].(string); !isStr && m[name] != nil {
				p.fail(ptr+"/"+escapePointer(name), "%s must be a string, got %s", name, jsonvalue.TypeName(m[name]))
			}
		}
		return m, len(m) > 0
	}
	return nil, false
}

// pubStringMap is a map of strings (switch messages, matchLabels).
const pubStringMap pubKind = 100

func (p *publisher) typeValue(v any, ptr string) (any, bool) {
	switch t := v.(type) {
	case string:
		return t, t != ""
	case []any:
		l := p.strings(v, ptr, "type")
		if len(l) == 1 {
			return l[0], true
		}
		return l, len(l) > 0
	}
	p.fail(ptr, "type must be a string or a list of strings, got %s", jsonvalue.TypeName(v))
	return nil, false
}

func (p *publisher) intValue(v any, ptr, k string) (any, bool) {
	f, ok := asFloat(v)
	if !ok || f != math.Trunc(f) || math.IsInf(f, 0) {
		what := jsonvalue.TypeName(v)
		if ok {
			what = strconv.FormatFloat(f, 'g', -1, 64)
		}
		p.fail(ptr, "%s must be an integer, got %s", k, what)
		return nil, false
	}
	if i, isInt := v.(int64); isInt {
		return i, true
	}
	return int64(f), true
}

func (p *publisher) strings(v any, ptr, k string) []any {
	l, ok := v.([]any)
	if !ok {
		p.fail(ptr, "%s must be a list of strings, got %s", k, jsonvalue.TypeName(v))
		return nil
	}
	out := make([]any, 0, len(l))
	for i, e := range l {
		s, isStr := e.(string)
		if !isStr && e != nil {
			p.fail(ptr+"/"+strconv.Itoa(i), "%s must be a list of strings, got %s", k, describeValue(e))
		}
		out = append(out, s)
	}
	return out
}

func (p *publisher) schema(v any, ptr string, depth int) any {
	if v == nil {
		return map[string]any{} // a null schema decodes as an empty one
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(ptr, "must be a schema (an object), got %s", jsonvalue.TypeName(v))
		return map[string]any{}
	}
	return p.node(m, ptr, depth+1)
}

func (p *publisher) schemaList(l []any, ptr string, depth int) []any {
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = p.schema(e, ptr+"/"+strconv.Itoa(i), depth)
	}
	return out
}

// schemaMap decodes a map of schemas; with deps a value may also be a list
// of property names.
func (p *publisher) schemaMap(v any, ptr, k string, depth int, deps bool) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(ptr, "%s must be a map of schemas, got %s", k, jsonvalue.TypeName(v))
		return nil, false
	}
	out := make(map[string]any, len(m))
	for _, name := range sortedKeys(m) {
		sub := ptr + "/" + escapePointer(name)
		if deps {
			switch x := m[name].(type) {
			case []any:
				out[name] = p.strings(x, sub, k)
			case map[string]any:
				out[name] = p.schema(x, sub, depth)
			}
			continue // anything else decodes as nothing
		}
		out[name] = p.schema(m[name], sub, depth)
	}
	return out, len(out) > 0
}

// object decodes an object with the given typed keys, dropping the others.
func (p *publisher) object(v any, ptr, k string, keys map[string]pubKind) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(ptr, "%s must be an object, got %s", k, jsonvalue.TypeName(v))
		return nil, false
	}
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(keys)) {
		if e, has := m[name]; has && e != nil {
			if d, keep := p.value(keys[name], e, ptr+"/"+escapePointer(name), name, 0); keep {
				out[name] = d
			}
		}
	}
	return out, len(out) > 0
}

// items decodes a list of objects with the given typed keys.
func (p *publisher) items(v any, ptr, k string, keys map[string]pubKind) (any, bool) {
	l, ok := v.([]any)
	if !ok {
		p.fail(ptr, "%s must be a list, got %s", k, jsonvalue.TypeName(v))
		return nil, false
	}
	out := make([]any, 0, len(l))
	for i, e := range l {
		d, _ := p.object(e, ptr+"/"+strconv.Itoa(i), k+" item", keys)
		if d == nil {
			d = map[string]any{}
		}
		out = append(out, d)
	}
	return out, len(out) > 0
}

func (p *publisher) resourceName(v any, ptr, k string) (any, bool) {
	out, keep := p.object(v, ptr, k, map[string]pubKind{"apiVersion": pubString, "kind": pubString})
	m, _ := v.(map[string]any)
	om, isMap := out.(map[string]any)
	ls, has := m["labelSelector"]
	if !has || ls == nil || !isMap {
		return out, keep
	}
	sel, _ := p.object(ls, ptr+"/labelSelector", "labelSelector", map[string]pubKind{"matchLabels": pubStringMap})
	sm, _ := sel.(map[string]any)
	lm, _ := ls.(map[string]any)
	if ex, ok := lm["matchExpressions"]; ok && ex != nil {
		exprs, keepEx := p.items(ex, ptr+"/labelSelector/matchExpressions", "matchExpressions",
			map[string]pubKind{"key": pubString, "operator": pubString, "values": pubStrings})
		if keepEx {
			if sm == nil {
				sm = map[string]any{}
			}
			sm["matchExpressions"] = exprs
		}
	}
	if len(sm) > 0 {
		om["labelSelector"] = sm
	}
	return om, true
}
