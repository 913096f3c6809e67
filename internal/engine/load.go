package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// Schema file names inside a package.
const (
	openapiDir         = "openapi"
	settingsYAML       = "settings.yaml"
	configValuesYAML   = "config-values.yaml"
	valuesYAML         = "values.yaml"
	publishedSettingsF = "settingsSchema"
	publishedValuesF   = "valuesSchema"
)

// packageFiles are the raw schema files of a package.
type packageFiles struct {
	settingsFile string // settings.yaml or config-values.yaml
	settings     []byte
	values       []byte // nil when absent
	hasValues    bool
}

// LoadDir loads the package in the folder dir, reading through
// os.Root: nothing outside the folder is read, and a symbolic link that
// leads out of it is an error naming the file. A missing dir or dir/openapi
// is a clear error. The package names dir in its internal-error messages
// (the compiled schemas are shared with other loads of the same contents).
func LoadDir(dir string) (*Package, error) {
	fsys, closeRoot, err := openPackageDir(dir)
	if err != nil {
		return nil, err
	}
	defer closeRoot()
	p, err := loadFS(fsys)
	if err != nil {
		return nil, err
	}
	named := *p // the compiled package is shared (cached); only the name differs
	named.source = dir
	return &named, nil
}

// openPackageDir opens a package folder for reading through os.Root, so no
// file is read from outside the folder: a symbolic link that leads out of it
// is refused with an error naming the file.
func openPackageDir(dir string) (fs.FS, func(), error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, nil, &SchemaError{File: dir, Message: "package directory cannot be read: " + errText(err)}
	}
	if !st.IsDir() {
		return nil, nil, &SchemaError{File: dir, Message: "package path is not a directory"}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, &SchemaError{File: dir, Message: "package directory cannot be read: " + errText(err)}
	}
	fsys := root.FS()
	od := filepath.Join(dir, openapiDir)
	st, err = fs.Stat(fsys, openapiDir)
	if err != nil {
		root.Close()
		return nil, nil, &SchemaError{File: od, Message: "the package has no readable openapi/ directory: " + errText(err)}
	}
	if !st.IsDir() {
		root.Close()
		return nil, nil, &SchemaError{File: od, Message: "openapi is not a directory"}
	}
	if _, err := fs.ReadDir(fsys, openapiDir); err != nil {
		root.Close()
		return nil, nil, &SchemaError{File: od, Message: "openapi/ directory cannot be read: " + errText(err)}
	}
	return fsys, func() { root.Close() }, nil
}

// errText is the reason of a file error without the operation and path
// (the SchemaError names the file); a path that os.Root refuses because it
// leads outside the package folder says so.
func errText(err error) string {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return "it is a symbolic link (or lies behind one) that leads outside the package folder; only files inside the folder are read"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// readPackageFiles reads the schema files used for evaluation.
func readPackageFiles(fsys fs.FS) (*packageFiles, error) {
	if fsys == nil {
		return nil, &SchemaError{File: openapiDir + "/", Message: "no package file system given"}
	}
	if st, err := fs.Stat(fsys, openapiDir); err != nil {
		return nil, &SchemaError{File: openapiDir + "/", Message: "the package has no readable openapi/ directory: " + errText(err)}
	} else if !st.IsDir() {
		return nil, &SchemaError{File: openapiDir, Message: "openapi is not a directory"}
	}
	pf := &packageFiles{}
	for _, name := range []string{settingsYAML, configValuesYAML} {
		data, ok, err := readSchemaFile(fsys, name)
		if err != nil {
			return nil, err
		}
		if ok {
			pf.settingsFile, pf.settings = name, data
			break
		}
	}
	if pf.settingsFile == "" {
		return nil, &SchemaError{File: openapiDir + "/", Message: "the package has no settings schema: neither openapi/settings.yaml nor openapi/config-values.yaml exists"}
	}
	data, ok, err := readSchemaFile(fsys, valuesYAML)
	if err != nil {
		return nil, err
	}
	pf.values, pf.hasValues = data, ok
	return pf, nil
}

// readSchemaFile reads openapi/<name>, enforcing the 1 MiB limit. A missing
// file is (nil, false, nil).
func readSchemaFile(fsys fs.FS, name string) ([]byte, bool, error) {
	p := openapiDir + "/" + name
	f, err := fsys.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, &SchemaError{File: p, Message: "cannot be read: " + errText(err)}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, false, &SchemaError{File: p, Message: "is a directory, not a schema file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, false, &SchemaError{File: p, Message: "cannot be read: " + errText(err)}
	}
	if len(data) > maxFileSize {
		return nil, false, &SchemaError{File: p, Message: fmt.Sprintf("file is larger than the limit of %d bytes (1 MiB)", maxFileSize)}
	}
	return data, true, nil
}

// loadFS loads and compiles the package whose root (holding openapi/) is fsys.
// It reads openapi/settings.yaml (or openapi/config-values.yaml only when
// settings.yaml is absent) and the optional openapi/values.yaml; doc-ru files
// play no part in evaluation. Loading the same file contents twice returns
// the same *Package.
func loadFS(fsys fs.FS) (*Package, error) {
	pf, err := readPackageFiles(fsys)
	if err != nil {
		return nil, err
	}
	key := cacheKey([]byte("fs"), []byte(pf.settingsFile), pf.settings, boolByte(pf.hasValues), pf.values)
	return cached(key, func() (*Package, error) {
		in := buildInput{
			settingsName: pf.settingsFile,
			settingsFile: openapiDir + "/" + pf.settingsFile,
			settings:     pf.settings,
		}
		if pf.hasValues {
			in.valuesFile = openapiDir + "/" + valuesYAML
			in.values = pf.values
		}
		return build(in)
	})
}

func loadPublished(settings, values []byte) (*Package, error) {
	key := cacheKey([]byte("published"), settings, values)
	return cached(key, func() (*Package, error) {
		in := buildInput{settingsFile: publishedSettingsF, settings: settings}
		if len(values) > 0 {
			in.valuesFile, in.values = publishedValuesF, values
		}
		return build(in)
	})
}

type buildInput struct {
	settingsName string // settings.yaml / config-values.yaml, "" for published
	settingsFile string // name used in errors
	settings     []byte
	valuesFile   string // "" when no values schema
	values       []byte
}

// build runs the whole preparation: parse → publish → $ref → tolerate
// (keyword values DP loads, see tolerate) → x-extend → close → extension
// checks → compile → CEL rules.
func build(in buildInput) (*Package, error) {
	order := keyOrder{}
	sRaw, err := parseSchemaRoot(in.settingsFile, in.settings, order)
	if err != nil {
		return nil, err
	}
	p := &Package{settingsFile: in.settingsName}
	// A publishing error is reported after the schema compiled, so a
	// keyword the compiler refuses keeps the compiler's message.
	var pubErr error
	p.publishedSettings, pubErr = publish(in.settingsFile, sRaw)
	sRes, err := resolveRefs(in.settingsFile, sRaw, order)
	if err != nil {
		return nil, err
	}
	tolerate(in.settingsFile, sRes, order)
	if p.settings, err = prepareDoc(in.settingsFile, sRes, order); err != nil {
		return nil, preferPublish(err, pubErr)
	}
	if in.valuesFile == "" {
		if pubErr != nil {
			return nil, pubErr
		}
		return p, nil
	}
	vRaw, err := parseSchemaRoot(in.valuesFile, in.values, order)
	if err != nil {
		return nil, err
	}
	var vPubErr error
	p.publishedValues, vPubErr = publish(in.valuesFile, vRaw)
	if pubErr == nil {
		pubErr = vPubErr
	}
	vRes, err := resolveRefs(in.valuesFile, vRaw, order)
	if err != nil {
		return nil, err
	}
	tolerate(in.valuesFile, vRes, order)
	vExt, err := applyExtend(in.valuesFile, vRes, sRes, in.settingsName, order)
	if err != nil {
		return nil, err
	}
	if p.values, err = prepareDoc(in.valuesFile, vExt, order); err != nil {
		return nil, preferPublish(err, vPubErr)
	}
	if pubErr != nil {
		return nil, pubErr
	}
	return p, nil
}

// preferPublish returns the publishing error instead of err when both are
// about the same place (an extension of the wrong type): "DP will not
// publish this package version" is the verdict that matters.
func preferPublish(err, pubErr error) error {
	var se, pe *SchemaError
	if errors.As(err, &se) && errors.As(pubErr, &pe) && se.File == pe.File && se.SchemaPath == pe.SchemaPath {
		return pubErr
	}
	return err
}

// parseSchemaRoot parses a schema file whose root must be an object.
func parseSchemaRoot(file string, data []byte, order keyOrder) (map[string]any, error) {
	v, err := parseDocument(file, data, order)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &SchemaError{File: file, Message: fmt.Sprintf("the schema must be an object (a YAML mapping), got %s", jsonvalue.TypeName(v))}
	}
	return m, nil
}

// prepareDoc closes a resolved (and extended) tree on a copy, checks the
// extensions evaluation depends on, compiles it and its CEL rules.
func prepareDoc(file string, resolved map[string]any, order keyOrder) (*schemaDoc, error) {
	tree, _ := copyTree(resolved, order).(map[string]any)
	closeObjects(tree, order)
	if err := checkLoadExtensions(file, tree, order); err != nil {
		return nil, err
	}
	compiled, err := compileSchema(file, tree)
	if err != nil {
		return nil, err
	}
	node, err := buildSchemaNode(file, tree)
	if err != nil {
		return nil, err
	}
	d := &schemaDoc{file: file, tree: tree, compiled: compiled, node: node, order: order}
	if node.hasRules {
		d.rules = node
	}
	return d, nil
}

func boolByte(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}
