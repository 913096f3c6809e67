package internal_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sizeLinters are the linters whose findings the size exemptions silence.
var sizeLinters = []string{"funlen", "gocognit"}

// sizeExemption is one rule of .golangci.yml that exempts named functions of
// one file from the size bounds.
type sizeExemption struct {
	File  string   // the file, relative to the repository root
	Funcs []string // the functions it names
}

// lintConfig is the part of .golangci.yml the size exemptions live in.
type lintConfig struct {
	Linters struct {
		Exclusions struct {
			Rules []struct {
				Linters []string `yaml:"linters"`
				Path    string   `yaml:"path"`
				Source  string   `yaml:"source"`
			} `yaml:"rules"`
		} `yaml:"exclusions"`
	} `yaml:"linters"`
}

var (
	exactFile = regexp.MustCompile(`^\^((?:[A-Za-z0-9_/-]|\\\.)+)\$$`)
	funcNames = regexp.MustCompile(`^` + regexp.QuoteMeta(`^func (\([^)]*\) )?(`) + `([A-Za-z0-9_|]+)` + regexp.QuoteMeta(`)\(`) + `$`)
)

// sizeExemptions reads the size exemptions of .golangci.yml. A rule for the
// size linters must name one file (an anchored path) and its functions (an
// anchored declaration with an alternation of names); the rule that exempts
// every test file is the only other shape allowed.
func sizeExemptions(t *testing.T) []sizeExemption {
	t.Helper()
	raw, err := os.ReadFile("../.golangci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg lintConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf(".golangci.yml: %v", err)
	}
	var out []sizeExemption
	for _, r := range cfg.Linters.Exclusions.Rules {
		if !slices.ContainsFunc(r.Linters, func(l string) bool { return slices.Contains(sizeLinters, l) }) {
			continue
		}
		if r.Path == `_test\.go` && r.Source == "" {
			continue
		}
		file, fn := exactFile.FindStringSubmatch(r.Path), funcNames.FindStringSubmatch(r.Source)
		if file == nil || fn == nil {
			t.Errorf("size exemption path %q source %q: name one file (^dir/file\\.go$) and its functions (^func (\\([^)]*\\) )?(a|b)\\()", r.Path, r.Source)
			continue
		}
		out = append(out, sizeExemption{File: strings.ReplaceAll(file[1], `\.`, "."), Funcs: strings.Split(fn[1], "|")})
	}
	return out
}

// declaredFuncs lists the functions and methods a Go file declares.
func declaredFuncs(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", file), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("size exemption names %s: %v", file, err)
		return nil
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			out[fd.Name.Name] = true
		}
	}
	return out
}

// TestLintExemptions_NameFunctionsThatExist: each size exemption names one
// file and functions that file declares, so a renamed or removed function
// leaves no exemption behind that would silence its successor.
func TestLintExemptions_NameFunctionsThatExist(t *testing.T) {
	for _, ex := range sizeExemptions(t) {
		declared := declaredFuncs(t, ex.File)
		for _, fn := range ex.Funcs {
			if !declared[fn] {
				t.Errorf("size exemption for %s names %s, which the file does not declare: remove it from .golangci.yml", ex.File, fn)
			}
		}
	}
}

// TestLintExemptions_EachSilencesAFinding runs the size linters with no
// exemption (golangci-lint named by DECKHOUSE_GOLANGCI_LINT, which `make
// lint` sets) and checks that every exempted function is above a bound: an
// exemption that silences nothing fails, so a function split below the
// bounds also loses its exemption.
func TestLintExemptions_EachSilencesAFinding(t *testing.T) {
	lint := os.Getenv("DECKHOUSE_GOLANGCI_LINT")
	if lint == "" {
		t.Skip("DECKHOUSE_GOLANGCI_LINT is not set (make lint sets it)")
	}
	exemptions := sizeExemptions(t)
	cfg := filepath.Join(t.TempDir(), "golangci.yml")
	settings := "version: \"2\"\nrun:\n  tests: false\n  relative-path-mode: gitroot\nlinters:\n  default: none\n  enable: [funlen, gocognit]\n" +
		"  settings:\n    funlen: {lines: 100, statements: 60, ignore-comments: true}\n    gocognit: {min-complexity: 30}\n" +
		"  exclusions:\n    paths: [tools/, .local/]\n"
	if err := os.WriteFile(cfg, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	jsonOut := filepath.Join(t.TempDir(), "issues.json")
	cmd := exec.Command(lint, "run", "-c", cfg, "--output.json.path="+jsonOut, "--issues-exit-code=0", "--allow-parallel-runners", "./...")
	cmd.Dir = ".."
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("golangci-lint: %v\n%s", err, msg)
	}
	out, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Issues []struct {
			Text        string   `json:"Text"`
			SourceLines []string `json:"SourceLines"`
			Pos         struct {
				Filename string `json:"Filename"`
			} `json:"Pos"`
		} `json:"Issues"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("golangci-lint's JSON: %v\n%s", err, out)
	}
	found := map[string]bool{} // "file func"
	decl := regexp.MustCompile(`^func (\([^)]*\) )?([A-Za-z0-9_]+)\(`)
	for _, is := range report.Issues {
		for _, line := range is.SourceLines {
			if m := decl.FindStringSubmatch(line); m != nil {
				found[filepath.ToSlash(is.Pos.Filename)+" "+m[2]] = true
			}
		}
	}
	for _, ex := range exemptions {
		for _, fn := range ex.Funcs {
			if !found[ex.File+" "+fn] {
				t.Errorf("size exemption for %s %s silences nothing (it is within the bounds now): remove it from .golangci.yml", ex.File, fn)
			}
		}
	}
}
