package provider

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// examplesTofuPath is the tofu binary the examples test runs: TF_ACC_TERRAFORM_PATH,
// else tofu in DECKHOUSE_TOOLS_BIN (or the default tools cache).
func examplesTofuPath() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	if d := os.Getenv("DECKHOUSE_TOOLS_BIN"); d != "" {
		return filepath.Join(d, "tofu")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "terraform-provider-deckhouse", "bin", "tofu")
}

// localModuleSource matches a module block's local source ("./x" or "../x").
var localModuleSource = regexp.MustCompile(`(?m)^\s*source\s*=\s*"\.\.?/`)

// cliFeature is a language feature that some examples use and that older CLIs
// lack: each example file using one is checked only with CLIs that have it.
// The versions are the ones the docs' Requirements table gives; "" means the
// CLI has no such feature.
type cliFeature struct {
	name                string
	uses                *regexp.Regexp
	terraform, opentofu string
}

var cliFeatures = []cliFeature{
	{name: "import by identity", uses: regexp.MustCompile(`(?m)^\s*identity\s*=\s*\{`), terraform: "1.12", opentofu: "1.12"},
	{name: "list blocks (terraform query)", uses: regexp.MustCompile(`(?m)^\s*list\s+"`), terraform: "1.14"},
}

// exampleCLI is one Terraform or OpenTofu binary the examples are checked with.
type exampleCLI struct {
	path     string
	product  string // "Terraform" or "OpenTofu"
	minor    int    // 1.<minor>
	version  string
	optional bool // found on PATH, not the one the toolchain provides
}

var cliVersionLine = regexp.MustCompile(`(?m)^(OpenTofu|Terraform) v1\.(\d+)\.\d+`)

func newExampleCLI(t *testing.T, path string, optional bool) (exampleCLI, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE=")
	out, _ := cmd.CombinedOutput()
	m := cliVersionLine.FindSubmatch(out)
	if m == nil {
		return exampleCLI{}, false
	}
	minor, err := strconv.Atoi(string(m[2]))
	if err != nil {
		return exampleCLI{}, false
	}
	return exampleCLI{path: path, product: string(m[1]), minor: minor, version: string(m[0]), optional: optional}, true
}

// supports reports whether the CLI has the feature.
func (c exampleCLI) supports(f cliFeature) bool {
	want := f.opentofu
	if c.product == "Terraform" {
		want = f.terraform
	}
	minor, ok := strings.CutPrefix(want, "1.")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(minor)
	return err == nil && c.minor >= n
}

// examplesCLIs is the toolchain's CLI first, then every other tofu or
// terraform on PATH (or in DECKHOUSE_EXAMPLES_CLIS, a PATH-style list) that
// is at least 1.11, the users' minimum: the examples must hold on each, apart
// from the files whose features that CLI lacks.
func examplesCLIs(t *testing.T, primary string) []exampleCLI {
	t.Helper()
	first, ok := newExampleCLI(t, primary, false)
	if !ok {
		t.Fatalf("%s prints no Terraform or OpenTofu version", primary)
	}
	clis := []exampleCLI{first}
	seen := map[string]bool{}
	if p, err := filepath.EvalSymlinks(primary); err == nil {
		seen[p] = true
	}
	var candidates []string
	if list := os.Getenv("DECKHOUSE_EXAMPLES_CLIS"); list != "" {
		candidates = filepath.SplitList(list)
	} else {
		for _, name := range []string{"terraform", "tofu"} {
			if p, err := exec.LookPath(name); err == nil {
				candidates = append(candidates, p)
			}
		}
	}
	for _, p := range candidates {
		resolved, err := filepath.EvalSymlinks(p)
		if err != nil || seen[resolved] {
			continue
		}
		seen[resolved] = true
		if c, ok := newExampleCLI(t, p, true); ok && c.minor >= 11 {
			clis = append(clis, c)
		}
	}
	return clis
}

// examplesWithout removes from dir the .tf files that use a feature the CLI
// lacks, and returns what it removed, each with the reason.
func examplesWithout(t *testing.T, dir string, cli exampleCLI) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	var removed []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, feat := range cliFeatures {
			if feat.uses.Match(b) && !cli.supports(feat) {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
				removed = append(removed, fmt.Sprintf("%s (%s needs Terraform %s / OpenTofu %s)",
					filepath.Base(f), feat.name, orNone(feat.terraform), orNone(feat.opentofu)))
				break
			}
		}
	}
	return removed
}

func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// TestExamples_TofuValidate proves every example directory (every folder under
// examples/ holding .tf files) is a valid configuration for the provider as
// built from this tree: `tofu validate` with a dev_overrides CLI config, so no
// registry is contacted. Directories calling local modules get `tofu get`
// first, which installs modules only. It runs with the toolchain's CLI and
// with every other one found (examplesCLIs), each example file only with the
// CLIs that have the features it uses (cliFeatures).
func TestExamples_TofuValidate(t *testing.T) {
	tofu := examplesTofuPath()
	if fi, err := os.Stat(tofu); err != nil || fi.IsDir() {
		if os.Getenv("TF_ACC") != "" {
			t.Fatalf("tofu not found at %s: run make tools", tofu)
		}
		t.Skipf("tofu not found at %s (set TF_ACC=1 to make this an error)", tofu)
	}

	_, thisFile, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(thisFile), "..", ".."))
	tmp := t.TempDir()

	// The provider binary: the one make built, or a fresh build of this tree.
	plugins := filepath.Join(tmp, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	providerBin := filepath.Join(plugins, "terraform-provider-deckhouse")
	if built := os.Getenv("DECKHOUSE_PROVIDER_BIN"); built != "" {
		if err := os.Symlink(built, providerBin); err != nil {
			t.Fatal(err)
		}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", providerBin, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build the provider: %v\n%s", err, out)
		}
	}

	// Examples written as fragments (no required_providers) resolve the
	// provider as hashicorp/deckhouse: override that address too.
	cliConfig := filepath.Join(tmp, "tofurc")
	var cfg strings.Builder
	cfg.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, addr := range []string{
		"registry.opentofu.org/deckhouse/deckhouse",
		"registry.opentofu.org/hashicorp/deckhouse",
		"registry.terraform.io/deckhouse/deckhouse",
		"registry.terraform.io/hashicorp/deckhouse",
	} {
		cfg.WriteString("    \"" + addr + "\" = \"" + plugins + "\"\n")
	}
	cfg.WriteString("  }\n  direct {}\n}\n")
	if err := os.WriteFile(cliConfig, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	env := append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"TF_LOG=",
	)
	for _, cli := range examplesCLIs(t, tofu) {
		t.Run(cli.version, func(t *testing.T) {
			examplesValidate(t, root, cli, env)
		})
	}
}

// examplesValidate validates every example directory with one CLI, on a copy
// of examples/ so relative module sources resolve, files the CLI cannot read
// can be left out, and no .terraform folder is left in the tree.
func examplesValidate(t *testing.T, root string, cli exampleCLI, env []string) {
	examples := t.TempDir()
	if err := examplesCopyTree(filepath.Join(root, "examples"), examples); err != nil {
		t.Fatal(err)
	}
	dirs := examplesTFDirs(t, examples)
	for _, want := range []string{"provider", "quickstart", "modules/environments/staging", "modules/environments/production"} {
		if !slices.Contains(dirs, want) {
			t.Errorf("example directory examples/%s is missing (found %v)", want, dirs)
		}
	}
	for _, rel := range dirs {
		t.Run(rel, func(t *testing.T) {
			dir := filepath.Join(examples, rel)
			for _, r := range examplesWithout(t, dir, cli) {
				if !cli.optional {
					t.Errorf("%s cannot check examples/%s/%s", cli.version, rel, r)
				} else {
					t.Logf("%s: not checking examples/%s/%s", cli.version, rel, r)
				}
			}
			run := func(args ...string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, cli.path, append([]string{"-chdir=" + dir}, args...)...)
				cmd.Env = env
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s %s in examples/%s: %v\n%s", cli.version, strings.Join(args, " "), rel, err, out.String())
				}
			}
			// Examples are fragments of a configuration that declares the
			// provider; provider functions need that declaration.
			if !examplesDeclareProvider(t, dir) {
				decl := "terraform {\n  required_providers {\n    deckhouse = {\n      source = \"deckhouse/deckhouse\"\n    }\n  }\n}\n"
				if err := os.WriteFile(filepath.Join(dir, "zz_examples_test_providers.tf"), []byte(decl), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if examplesUseLocalModules(t, dir) {
				run("get", "-no-color")
			}
			run("validate", "-no-color")
		})
	}
}

// examplesTFDirs lists, relative to root and sorted, every folder holding .tf files.
func examplesTFDirs(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".tf") {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			seen[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// examplesDeclareProvider reports whether a .tf file in dir has a
// required_providers block.
func examplesDeclareProvider(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("required_providers")) {
			return true
		}
	}
	return false
}

func examplesUseLocalModules(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("module ")) && localModuleSource.Match(b) {
			return true
		}
	}
	return false
}

func examplesCopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != src {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if strings.Contains(d.Name(), ".tfstate") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
