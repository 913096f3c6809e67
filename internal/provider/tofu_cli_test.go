package provider

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// tofuCLI runs OpenTofu as a user does, against the provider binary through a
// dev_overrides CLI configuration, in a folder of its own: the tests that need
// the CLI's own output, its log file, saved plans or a provider built with
// -race use it instead of terraform-plugin-testing.
type tofuCLI struct {
	t       *testing.T
	dir     string
	tofu    string
	env     []string
	logPath string
}

// tofuResult is one run of the CLI.
type tofuResult struct {
	Stdout, Stderr string
	Code           int
}

// Output is stdout and stderr together, for failure messages.
func (r tofuResult) Output() string { return r.Stdout + r.Stderr }

// builtProvider is one build of the provider for the CLI tests.
type builtProvider struct {
	once sync.Once
	path string
	out  string
	err  error
}

var builtProviders = map[bool]*builtProvider{false: {}, true: {}} // by -race

// providerBinary returns the provider the CLI tests run: with race, a build
// with -race (once per test binary); otherwise DECKHOUSE_PROVIDER_BIN (the
// binary make built) or a fresh build of this tree.
func providerBinary(t *testing.T, race bool) string {
	t.Helper()
	if !race {
		if p := os.Getenv("DECKHOUSE_PROVIDER_BIN"); p != "" {
			return p
		}
	}
	b := builtProviders[race]
	b.once.Do(func() {
		_, thisFile, _, _ := runtime.Caller(0)
		root := filepath.Clean(filepath.Join(filepath.Dir(thisFile), "..", ".."))
		dir, err := os.MkdirTemp("", "deckhouse-provider-bin") //nolint:usetesting // shared by every test of the binary, outlives each test
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "terraform-provider-deckhouse")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		args := []string{"build", "-o", b.path}
		if race {
			args = append(args, "-race")
		}
		cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		b.out, b.err = string(out), err
	})
	if b.err != nil {
		t.Fatalf("building the provider: %v\n%s", b.err, b.out)
	}
	return b.path
}

// newTofuCLI prepares a working folder whose CLI configuration points at the
// provider binary; extraEnv is added to every run (TF_LOG=trace goes to a log
// file of the folder unless the test sets its own).
func newTofuCLI(t *testing.T, race bool, extraEnv ...string) *tofuCLI {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs OpenTofu: needs TF_ACC=1 and the toolchain")
	}
	tofu := examplesTofuPath()
	if fi, err := os.Stat(tofu); err != nil || fi.IsDir() {
		t.Fatalf("tofu not found at %s: run make tools", tofu)
	}
	dir := t.TempDir()
	plugins := filepath.Join(dir, ".plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(providerBinary(t, race), filepath.Join(plugins, "terraform-provider-deckhouse")); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, ".tofurc")
	// Both registries' addresses: the same folder serves OpenTofu and Terraform.
	cfg := "provider_installation {\n  dev_overrides {\n    \"registry.opentofu.org/deckhouse/deckhouse\" = \"" + plugins + "\"\n" +
		"    \"registry.terraform.io/deckhouse/deckhouse\" = \"" + plugins + "\"\n  }\n  direct {}\n}\n"
	if err := os.WriteFile(rc, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &tofuCLI{t: t, dir: dir, tofu: tofu, logPath: filepath.Join(dir, ".tofu.log")}
	c.env = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+rc,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"TF_LOG=trace",
		"TF_LOG_PATH="+c.logPath,
	)
	c.env = append(c.env, extraEnv...)
	return c
}

// write replaces the configuration (main.tf) with the provider block of the
// test's control plane, or the given one, and body.
func (c *tofuCLI) write(body string) {
	c.t.Helper()
	cfg := "terraform {\n  required_providers {\n    deckhouse = {\n      source = \"deckhouse/deckhouse\"\n    }\n  }\n}\n" + body
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(cfg), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// run runs tofu with args in the folder (-no-color and -input=false added
// where the command takes them).
func (c *tofuCLI) run(env []string, args ...string) tofuResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	full := []string{"-chdir=" + c.dir, args[0]}
	switch args[0] {
	case "plan", "apply", "destroy", "import", "refresh":
		full = append(full, "-no-color", "-input=false")
	case "show":
		full = append(full, "-no-color")
	}
	full = append(full, args[1:]...)
	cmd := exec.CommandContext(ctx, c.tofu, full...)
	cmd.Env = append(append([]string(nil), c.env...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := tofuResult{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		res.Code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("tofu %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// must runs tofu and fails the test unless it exits 0.
func (c *tofuCLI) must(args ...string) tofuResult {
	c.t.Helper()
	res := c.run(nil, args...)
	if res.Code != 0 {
		c.t.Fatalf("tofu %s exited %d:\n%s", strings.Join(args, " "), res.Code, res.Output())
	}
	return res
}

// planClean asserts that a plain plan finds state and cluster in agreement
// (tofu plan -detailed-exitcode exits 0).
func (c *tofuCLI) planClean() {
	c.t.Helper()
	res := c.run(nil, "plan", "-detailed-exitcode")
	if res.Code != 0 {
		c.t.Fatalf("plan after the scenario: exit %d, want 0 (no changes):\n%s", res.Code, res.Output())
	}
}

// file returns the content of a file of the folder ("" when missing).
func (c *tofuCLI) file(name string) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, name))
	return string(b)
}

// outputHas reports whether the run's output holds text, ignoring how the
// CLI wrapped its lines.
func outputHas(r tofuResult, text string) bool {
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	return strings.Contains(flat(r.Output()), flat(text))
}
