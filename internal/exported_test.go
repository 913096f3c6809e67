package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testSupport are the packages whose exported names exist for tests: their
// callers are tests by design.
var testSupport = []string{
	"internal/dpclient/dpfake", // the fake DP API server of the unit tests
	"internal/faultproxy",      // the fault-injecting proxy of the acceptance tests
}

// testOnly are exported names whose only callers are tests of another
// package, each with the reason it stays (the lint target's deadcode step
// lets the same names pass).
var testOnly = map[string]string{
	// The resource's test asserts that the shortcuts answer for it, so
	// that a schema change cannot turn them off unnoticed.
	"internal/provider/protocol.Check": "a guard the resource's tests call",
}

// TestExportedNames_HaveAProductionCaller reads every non-test Go file of
// the module with go/parser and names each exported function, type,
// constant and variable that no non-test file refers to: such a name is
// dead code kept alive by its tests, and is removed (or, when the package
// uses it itself, unexported). Methods are left to deadcode, which
// `make lint` runs from the module's main packages; a method can be called
// through an interface, which a reading without types cannot follow.
func TestExportedNames_HaveAProductionCaller(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // package dir (relative) -> files
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "docs" || name == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != ".." {
				return filepath.SkipDir // another module (a tool's pin)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", filepath.Dir(path))
		files[filepath.ToSlash(rel)] = append(files[filepath.ToSlash(rel)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{} // "dir.Name" referred to outside its declaration
	declared := map[string]token.Pos{}
	for dir, fs := range files {
		for _, f := range fs {
			imports := map[string]string{} // local name -> package dir
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				own, ok := strings.CutPrefix(p, module+"/")
				if !ok {
					continue
				}
				name := own[strings.LastIndex(own, "/")+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				imports[name] = own
			}
			skip := map[*ast.Ident]bool{}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					skip[d.Name] = true
					if d.Recv == nil && d.Name.IsExported() && dir != "." {
						declared[dir+"."+d.Name.Name] = d.Name.Pos()
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							skip[s.Name] = true
							if s.Name.IsExported() {
								declared[dir+"."+s.Name.Name] = s.Name.Pos()
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								skip[n] = true
								if n.IsExported() {
									declared[dir+"."+n.Name] = n.Pos()
								}
							}
						}
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Field:
					for _, id := range n.Names {
						skip[id] = true
					}
				case *ast.CompositeLit:
					// A key of a literal other than a map's names a field.
					if _, isMap := n.Type.(*ast.MapType); !isMap {
						for _, e := range n.Elts {
							if kv, ok := e.(*ast.KeyValueExpr); ok {
								if id, ok := kv.Key.(*ast.Ident); ok {
									skip[id] = true
								}
							}
						}
					}
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok {
						if pkg, ok := imports[x.Name]; ok {
							used[pkg+"."+n.Sel.Name] = true
						}
					}
					skip[n.Sel] = true
				case *ast.Ident:
					if !skip[n] {
						used[dir+"."+n.Name] = true
					}
				}
				return true
			})
		}
	}
	var dead []string
	for name, pos := range declared {
		dir := name[:strings.LastIndex(name, ".")]
		if used[name] || slices.Contains(testSupport, dir) || testOnly[name] != "" {
			continue
		}
		dead = append(dead, fset.Position(pos).String()+": "+name)
	}
	for name := range testOnly {
		if _, ok := declared[name]; !ok {
			t.Errorf("testOnly names %s, which is not declared", name)
		}
	}
	slices.Sort(dead)
	for _, d := range dead {
		t.Errorf("%s has no caller outside tests", d)
	}
}
