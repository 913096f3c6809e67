package engine

import (
	"encoding/json"
	"errors"
	"testing"
)

var fuzzSchemaSeeds = []string{
	"type: object\nproperties:\n  a: {type: string}\n",
	"x: &a {type: string}\ntype: object\nproperties:\n  a: *a\n  b: {<<: *a, pattern: '^x'}\n",
	"definitions:\n  d: {type: integer}\ntype: object\nproperties:\n  a: {$ref: '#/definitions/d'}\n",
	"definitions:\n  d: {$ref: '#/definitions/d'}\n",
	"type: object\nproperties:\n  m: {type: string, nullable: true, enum: [A, null], format: duration}\n",
	"type: object\nproperties:\n  s:\n    type: object\n    properties: {mode: {type: string}}\n    oneOf: [{required: [mode]}, {properties: {mode: {enum: [B]}}}]\n",
	"$schema: http://json-schema.org/schema#\ntype: object\nproperties:\n  n: {type: number, maximum: 3, exclusiveMaximum: true}\n",
	"{\"type\": \"object\", \"properties\": {\"1\": {\"type\": \"array\", \"items\": {\"type\": \"object\"}}}}",
	"- a\n- b\n",
	"type: [object\n",
	"1: 2\n",
}

func FuzzLoadSchema(f *testing.F) {
	for _, s := range fuzzSchemaSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := LoadPublished(data, nil)
		if err != nil {
			if se := (*SchemaError)(nil); !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SchemaError: %v", err, err)
			}
			return
		}
		if p.settings == nil || p.settings.tree == nil || p.settings.compiled == nil {
			t.Fatal("package without a compiled settings schema")
		}
		if !json.Valid(p.PublishedSettings()) {
			t.Fatal("published settings are not JSON")
		}
		// Whatever the schema, validating something must not panic.
		_ = p.settings.validate(DocSettings, map[string]any{"a": "x", "n": int64(1)})
	})
}

const fuzzValidateSchema = `
type: object
required: [name]
properties:
  name: {type: string, pattern: '^[a-z]+$', x-deckhouse-ui-validation-message: lowercase only}
  replicas: {type: integer, minimum: 1, maximum: 10}
  level: {type: string, nullable: true, enum: [Info, Debug]}
  timeout: {type: string, format: duration}
  labels: {type: object, additionalProperties: {type: string}}
  nodes:
    type: array
    items:
      type: object
      properties:
        host: {type: string, format: hostname}
        port: {type: integer}
  storage:
    type: object
    properties:
      mode: {type: string, enum: [Internal, External]}
      url: {type: string, format: uri}
    oneOf:
      - properties: {mode: {enum: [Internal]}}
      - properties: {mode: {enum: [External]}}
        required: [url]
`

func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{"name": "app", "replicas": 3}`,
		`{"name": "App", "replicas": 0, "extra": true}`,
		`{"level": null, "timeout": "1h30m", "labels": {"a": "b"}}`,
		`{"nodes": [{"host": "a.example", "port": 1}, {"host": "-", "x": 1}]}`,
		`{"storage": {"mode": "External"}}`,
		`{"storage": {"mode": null}}`,
		`[1, 2]`,
		`null`,
		`{"replicas": 1e400}`,
	} {
		f.Add([]byte(s))
	}
	p, err := LoadPublished([]byte(fuzzValidateSchema), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return
		}
		for _, pr := range p.settings.validate(DocSettings, v) {
			if pr.Message == "" || pr.Kind == "" || pr.Rule == "" {
				t.Fatalf("incomplete problem %+v", pr)
			}
		}
	})
}
