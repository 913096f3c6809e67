package engine

import (
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaError is an error in a package's schema files (loading, preparing,
// compiling): it names the file, the place inside the schema and what is wrong.
type SchemaError struct {
	File       string // e.g. openapi/settings.yaml ("" for published schemas: "settingsSchema"/"valuesSchema")
	SchemaPath string // JSON-pointer-like path inside the schema, "" for the whole file
	Message    string
}

func (e *SchemaError) Error() string {
	s := e.File
	if e.SchemaPath != "" {
		s += " at " + e.SchemaPath
	}
	if s != "" {
		s += ": "
	}
	return s + e.Message
}

// Package is a compiled DP package: immutable and safe for concurrent use.
type Package struct {
	source       string     // the folder given to LoadDir, "" otherwise (names the package in errors)
	settingsFile string     // "settings.yaml", "config-values.yaml", or "" when loaded from published schemas
	settings     *schemaDoc // never nil
	values       *schemaDoc // nil when the package has no values schema

	publishedSettings []byte // JSON
	publishedValues   []byte // JSON, nil when no values schema
}

// schemaDoc is one prepared and compiled schema.
type schemaDoc struct {
	file     string             // file name for messages
	tree     map[string]any     // prepared: $ref resolved, x-extend merged, objects closed
	compiled *jsonschema.Schema // draft-4 + nullable, DP's formats
	node     *schemaNode        // tree parsed once for the walkers, with its CEL rules compiled
	rules    *schemaNode        // node when the schema has CEL rules, else nil
	order    keyOrder           // source order of the keys of every map of tree (read-only)
}

// keys returns the keys of a map of the prepared tree (for example a
// properties map) in source order; keys added by preparation follow, sorted.
func (d *schemaDoc) keys(m map[string]any) []string { return d.order.keys(m) }

// LoadPublished compiles a package from published schemas (the JSON, or YAML,
// of status.packageSchemas.{settingsSchema,valuesSchema}.openAPIV3Schema).
// values may be empty. Compiling the same bytes twice returns the cached *Package.
func LoadPublished(settings, values []byte) (*Package, error) {
	return loadPublished(settings, values)
}

// SettingsFile names the settings schema file used ("settings.yaml" or
// "config-values.yaml"); "" for a package loaded from published schemas.
func (p *Package) SettingsFile() string { return p.settingsFile }

// PublishedSettings is the settings schema as DP publishes it (JSON).
func (p *Package) PublishedSettings() []byte { return p.publishedSettings }

// PublishedValues is the values schema as DP publishes it (JSON), nil when none.
func (p *Package) PublishedValues() []byte { return p.publishedValues }

// VerifyDir runs the openapi rules of `d8 package verify` on the package in
// the folder dir (see verify), read through
// os.Root as LoadDir reads it: nothing outside the folder is read, and a
// schema file that is a symbolic link leading out of it is an error finding
// naming the file.
func VerifyDir(dir string) ([]Finding, error) {
	fsys, closeRoot, err := openPackageDir(dir)
	if err != nil {
		return nil, err
	}
	defer closeRoot()
	return verify(fsys)
}

// describe names the package in messages.
func (p *Package) describe() string {
	switch {
	case p.source != "":
		return "the package at " + p.source
	case p.settingsFile != "":
		return "the package with openapi/" + p.settingsFile
	}
	return "the package of the published schemas"
}
