package engine

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// pkgFS builds a package file system from openapi file names and contents.
func pkgFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{"openapi": &fstest.MapFile{Mode: 0o755 | 1<<31}}
	for name, body := range files {
		m["openapi/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return m
}

// loadSchemas loads settings (and values, when not empty) through LoadFS.
func loadSchemas(t testing.TB, settings, values string) *Package {
	t.Helper()
	files := map[string]string{"settings.yaml": settings}
	if values != "" {
		files["values.yaml"] = values
	}
	p, err := loadFS(pkgFS(files))
	if err != nil {
		t.Fatalf("LoadFS: %v", err)
	}
	return p
}

// check validates a YAML settings document against the settings schema and
// renders the problems as "path|kind|rule" lines, sorted.
func check(t testing.TB, p *Package, doc string) []string {
	t.Helper()
	return renderProblems(p.settings.validate(DocSettings, yamlValue(t, doc)))
}

func renderProblems(ps []*Problem) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s|%s|%s", p.Path.String(), p.Kind, p.Rule))
	}
	sort.Strings(out)
	return out
}

func sameLines(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
