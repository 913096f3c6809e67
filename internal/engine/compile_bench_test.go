package engine

import (
	"fmt"
	"strings"
	"testing"
)

// benchSettingsSchema is a realistic settings schema: 50 fields in nested
// objects, arrays and maps, with enums, patterns, formats and a oneOf.
func benchSettingsSchema() string {
	var b strings.Builder
	b.WriteString("type: object\nproperties:\n")
	for g := 0; g < 5; g++ {
		fmt.Fprintf(&b, "  group%d:\n    type: object\n    default: {}\n    properties:\n", g)
		for f := 0; f < 9; f++ {
			switch f % 3 {
			case 0:
				fmt.Fprintf(&b, "      s%d: {type: string, pattern: '^[a-z0-9-]+$', default: x}\n", f)
			case 1:
				fmt.Fprintf(&b, "      n%d: {type: integer, minimum: 0, maximum: 100}\n", f)
			default:
				fmt.Fprintf(&b, "      e%d: {type: string, enum: [Low, Medium, High], nullable: true}\n", f)
			}
		}
	}
	b.WriteString(`  storage:
    type: object
    properties:
      mode: {type: string, enum: [Internal, External]}
      url: {type: string, format: uri}
    oneOf:
      - properties: {mode: {enum: [Internal]}}
      - properties: {mode: {enum: [External]}}
        required: [url]
  labels: {type: object, additionalProperties: {type: string}}
  nodes: {type: array, items: {type: object, properties: {host: {type: string, format: hostname}}}}
  timeout: {type: string, format: duration}
`)
	return b.String()
}

func BenchmarkCompile(b *testing.B) {
	schema := []byte(benchSettingsSchema())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		// Bypass the cache: measure parsing, preparation and compilation.
		if _, err := build(buildInput{settingsFile: publishedSettingsF, settings: schema}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadPublishedCached(b *testing.B) {
	schema := []byte(benchSettingsSchema())
	if _, err := LoadPublished(schema, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := LoadPublished(schema, nil); err != nil {
			b.Fatal(err)
		}
	}
}
