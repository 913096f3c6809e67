package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// reExtensionName matches the name of a DP extension inside a Go string.
var reExtensionName = regexp.MustCompile(`x-deckhouse-[a-z0-9]+(?:-[a-z0-9]+)*`)

// extensionUses scans the non-test Go files under root: every x-deckhouse-*
// name a string literal holds (by name: the places), and, for the files of
// this package other than extensions.go, the names referred to through the
// table's constants or literals (by name: the files).
func extensionUses(t *testing.T, root string, constants map[string]string) (places, handled map[string][]string) {
	t.Helper()
	places, handled = map[string][]string{}, map[string][]string{}
	engineDir, _ := filepath.Abs(".")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		abs, _ := filepath.Abs(path)
		inEngine := filepath.Dir(abs) == engineDir && filepath.Base(path) != "extensions.go"
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				s, _ := strconv.Unquote(x.Value)
				for _, name := range reExtensionName.FindAllString(s, -1) {
					places[name] = append(places[name], fset.Position(x.Pos()).String())
					if inEngine {
						handled[name] = append(handled[name], filepath.Base(path))
					}
				}
			case *ast.Ident:
				if name, ok := constants[x.Name]; ok && inEngine {
					handled[name] = append(handled[name], filepath.Base(path))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return places, handled
}

// tableConstants maps the names of the constants extensions.go declares for
// DP's extensions to their values.
func tableConstants(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "extensions.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
						if s, _ := strconv.Unquote(lit.Value); reExtensionName.MatchString(s) && s == reExtensionName.FindString(s) {
							out[id.Name] = s
						}
					}
				}
			}
		}
	}
	return out
}

// TestExtensions_EveryKeywordIsInTheTableAndHandled: the table of
// extensions.go is the one list of DP's x-deckhouse-* extensions. The test
// names every place a keyword misses:
//   - a name used anywhere in the project's code (internal/) but missing
//     from the table (each file:line);
//   - a table entry that no engine file other than extensions.go handles;
//   - a table entry without its check, its docs texts, or a decode (the
//     publish filter) that keeps it;
//   - the compatibility page, whose list of extensions must be the table's
//     (extensionsMarkdown).
func TestExtensions_EveryKeywordIsInTheTableAndHandled(t *testing.T) {
	constants := tableConstants(t)
	places, handled := extensionUses(t, "..", constants)
	names := make([]string, 0, len(places))
	for name := range places {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := extensionNamed(name); !ok {
			t.Errorf("%s is used but missing from the table in extensions.go: %s", name, strings.Join(places[name], ", "))
		}
	}
	for _, e := range extensions {
		if len(handled[e.name]) == 0 {
			t.Errorf("%s is in the table but no engine file handles it (load, evaluate, form or publish)", e.name)
		}
		if e.check == nil {
			t.Errorf("%s: the table entry has no check (verify and the loader)", e.name)
		}
		if e.where == "" || e.value == "" || e.does == "" {
			t.Errorf("%s: the table entry lacks a docs text (where, value, does)", e.name)
		}
		if kind, kept := publishedKeys[e.name]; e.decode != pubDropped && (!kept || kind != e.decode) {
			t.Errorf("%s: the publish filter does not keep it as the table decodes it", e.name)
		}
	}
	page, err := os.ReadFile("../../templates/guides/compatibility.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if want := extensionsMarkdown(); !strings.Contains(string(page), want) {
		t.Errorf("templates/guides/compatibility.md.tmpl does not list the table's extensions; its list must be:\n%s", want)
	}
}

// TestExtensions_VerifyAndPublishFollowTheTable: verify knows exactly the
// table's names (any other x-deckhouse-* key is an unknown-extension
// warning) and the publish filter keeps exactly the published ones.
func TestExtensions_VerifyAndPublishFollowTheTable(t *testing.T) {
	for _, e := range extensions {
		schema := "type: object\nproperties:\n  a:\n    type: string\n    " + e.name + ": {}\n"
		fs, err := verify(pkgFS(map[string]string{"settings.yaml": schema, "doc-ru-settings.yaml": "{}"}))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Rule == ruleExtensions && f.Severity == SeverityWarning {
				t.Errorf("%s: verify calls a table entry unknown: %s", e.name, f.Message)
			}
		}
	}
	fs, err := verify(pkgFS(map[string]string{"doc-ru-settings.yaml": "{}",
		"settings.yaml": "type: object\nproperties:\n  a: {type: string, x-deckhouse-ui-ordr: 1}\n"}))
	if err != nil || len(fs) != 1 || fs[0].Severity != SeverityWarning || !strings.Contains(fs[0].Message, "did you mean x-deckhouse-ui-order?") {
		t.Fatalf("an unknown key: got %v, %v", fs, err)
	}
	out, err := publish("settings.yaml", map[string]any{"type": "object", "x-deckhouse-ui-ordr": int64(1), extUIOrder: int64(1)})
	if err != nil || strings.Contains(string(out), "x-deckhouse-ui-ordr") || !strings.Contains(string(out), extUIOrder) {
		t.Fatalf("publish: got %s, %v", out, err)
	}
}

// extensionsMarkdown is the docs' list of DP's extensions: a Markdown table
// rendered from the table, which the compatibility page holds verbatim.
func extensionsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Extension | Where | Value | Published by DP | What the provider does |\n| --- | --- | --- | --- | --- |\n")
	rows := append([]extension(nil), extensions...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	for _, e := range rows {
		pub := "yes"
		if e.decode == pubDropped {
			pub = "no (dropped)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", e.name, e.where, e.value, pub, e.does)
	}
	return b.String()
}
