package internal_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// pkgInfo is one package of the module as go list names it.
type pkgInfo struct {
	rel  string // path under the module; "main" for the module root
	name string // the package clause's name
	dir  string
}

// modulePackages lists the packages of the module (go list ./...).
func modulePackages(t *testing.T) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Name}}\t{{.Dir}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		rel := strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")
		if rel == "" {
			rel = "main"
		}
		pkgs = append(pkgs, pkgInfo{rel: rel, name: f[1], dir: f[2]})
	}
	return pkgs
}

// layoutRow is one row of CONTRIBUTING.md's layout table: the packages its
// first column names and the text of the row.
type layoutRow struct {
	pkgs []string
	text string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// layoutTable reads the table under "## Layout" in CONTRIBUTING.md.
func layoutTable(t *testing.T) []layoutRow {
	t.Helper()
	b, err := os.ReadFile("../CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal(`CONTRIBUTING.md has no "## Layout" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []layoutRow
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
		var pkgs []string
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			pkgs = append(pkgs, strings.TrimSuffix(m[1], "/"))
		}
		rows = append(rows, layoutRow{pkgs: pkgs, text: line})
	}
	if len(rows) == 0 {
		t.Fatal("CONTRIBUTING.md's layout table has no rows")
	}
	return rows
}

// TestLayout_TableNamesEveryPackageAndNoOther checks that the first column
// of CONTRIBUTING.md's layout table names each package of the module once
// ("main" is the module root) and names nothing that is not a package.
func TestLayout_TableNamesEveryPackageAndNoOther(t *testing.T) {
	named := map[string]int{}
	for _, row := range layoutTable(t) {
		for _, p := range row.pkgs {
			named[p]++
		}
	}
	for _, p := range modulePackages(t) {
		switch named[p.rel] {
		case 0:
			t.Errorf("package %s has no row in CONTRIBUTING.md's layout table", p.rel)
		case 1:
		default:
			t.Errorf("package %s is named in %d rows of CONTRIBUTING.md's layout table", p.rel, named[p.rel])
		}
		delete(named, p.rel)
	}
	var stale []string
	for p := range named {
		stale = append(stale, p)
	}
	sort.Strings(stale)
	for _, p := range stale {
		t.Errorf("CONTRIBUTING.md's layout table names %s, which is not a package of the module", p)
	}
}

var goFileName = regexp.MustCompile(`[\w./*-]*\w\.go\b`)

// goFilesMissing returns the Go file names text mentions that exist neither
// in one of dirs nor under the module root (patterns with * are left alone).
func goFilesMissing(text string, dirs ...string) []string {
	var missing []string
	for _, name := range goFileName.FindAllString(text, -1) {
		found := strings.Contains(name, "*") // a pattern, not a file
		for _, d := range append(dirs, "..") {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				found = true
				break
			}
		}
		if !found && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	return missing
}

// TestLayout_TableNamesOnlyFilesThatExist checks the Go files a row of the
// layout table mentions: each is a file of one of the row's packages or a
// path from the module root.
func TestLayout_TableNamesOnlyFilesThatExist(t *testing.T) {
	for _, row := range layoutTable(t) {
		var dirs []string
		for _, p := range row.pkgs {
			if p != "main" {
				dirs = append(dirs, filepath.Join("..", p))
			}
		}
		for _, name := range goFilesMissing(row.text, dirs...) {
			t.Errorf("CONTRIBUTING.md's layout row of %s names %s, which does not exist", strings.Join(row.pkgs, ", "), name)
		}
	}
}

// TestPackages_DocCommentIsInDocGo checks that every package says what it
// owns in one place: a package comment in its doc.go ("Package <name> …", or
// "Command <name> …" for a program), and in no other file.
func TestPackages_DocCommentIsInDocGo(t *testing.T) {
	for _, p := range modulePackages(t) {
		files, err := filepath.Glob(filepath.Join(p.dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var doc string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case af.Doc == nil:
			case filepath.Base(f) == "doc.go":
				doc = af.Doc.Text()
			default:
				t.Errorf("%s: the package comment of %s belongs in doc.go", f, p.rel)
			}
		}
		prefix := "Package " + p.name + " "
		if p.name == "main" {
			prefix = "Command "
		}
		switch {
		case doc == "":
			t.Errorf("package %s has no doc.go with a package comment saying what it owns", p.rel)
		case !strings.HasPrefix(doc, prefix):
			t.Errorf("package %s: its package comment should start with %q", p.rel, prefix)
		}
		for _, name := range goFilesMissing(doc, p.dir) {
			t.Errorf("package %s: its package comment names %s, which does not exist", p.rel, name)
		}
	}
}
