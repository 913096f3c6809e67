package provider

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// moduleTestDirs are the example modules whose tests/*.tftest.hcl must pass
// with no cluster.
var moduleTestDirs = []string{"modules/demo-app"}

// moduleTestRun is one line of `test` output naming a run and its result.
var moduleTestRun = regexp.MustCompile(`(?m)^\s*run "([^"]+)"\.\.\. (pass|fail|skip)`)

// TestModuleTests_PassWithNoClusterOnEveryCLI runs `tofu test` (the
// toolchain's OpenTofu) and `terraform test` (the terraform on PATH, or
// DECKHOUSE_TEST_TERRAFORM; "off" skips it) in a copy of each example module
// that has tests, against the provider built from this tree through a
// dev_overrides CLI configuration. Every run must pass, the ones that expect
// the module's settings check to fail included. The provider is pointed at an
// API server that refuses every connection, with plan_checks = "required":
// a test that read the cluster would fail.
func TestModuleTests_PassWithNoClusterOnEveryCLI(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC not set: the module tests run the CLIs")
	}
	tofu := examplesTofuPath()
	if fi, err := os.Stat(tofu); err != nil || fi.IsDir() {
		t.Fatalf("tofu not found at %s: run make tools", tofu)
	}
	cliPaths := map[string]string{"tofu": tofu}
	switch tf := os.Getenv("DECKHOUSE_TEST_TERRAFORM"); tf {
	case "off":
	case "":
		p, err := exec.LookPath("terraform")
		if err != nil {
			t.Fatal("terraform not found on PATH: install Terraform 1.11 or later, or set DECKHOUSE_TEST_TERRAFORM=off")
		}
		cliPaths["terraform"] = p
	default:
		cliPaths["terraform"] = tf
	}

	_, thisFile, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(thisFile), "..", ".."))
	env := moduleTestEnv(t, root)

	for name, path := range cliPaths {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			examples := t.TempDir()
			if err := examplesCopyTree(filepath.Join(root, "examples"), examples); err != nil {
				t.Fatal(err)
			}
			for _, rel := range moduleTestDirs {
				dir := filepath.Join(examples, rel)
				tests, _ := filepath.Glob(filepath.Join(dir, "tests", "*.tftest.hcl"))
				if len(tests) == 0 {
					t.Fatalf("examples/%s has no tests/*.tftest.hcl", rel)
				}
				expectsFailure := false
				for _, f := range tests {
					b, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					expectsFailure = expectsFailure || bytes.Contains(b, []byte("expect_failures"))
				}
				if !expectsFailure {
					t.Fatalf("examples/%s/tests has no run that expects the settings check to fail (expect_failures)", rel)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				cmd := exec.CommandContext(ctx, path, "-chdir="+dir, "test", "-no-color")
				cmd.Env = env
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				cancel()
				if err != nil {
					t.Fatalf("%s test in examples/%s: %v\n%s", name, rel, err, out.String())
				}
				runs := moduleTestRun.FindAllStringSubmatch(out.String(), -1)
				if len(runs) < 2 {
					t.Fatalf("%s test in examples/%s ran %d runs, want a passing and a failing-settings one:\n%s", name, rel, len(runs), out.String())
				}
				for _, r := range runs {
					if r[2] != "pass" {
						t.Errorf("%s test in examples/%s: run %q: %s\n%s", name, rel, r[1], r[2], out.String())
					}
				}
			}
		})
	}
}

// moduleTestEnv is the CLIs' environment: the provider of this tree through
// dev_overrides, and a cluster connection that cannot succeed.
func moduleTestEnv(t *testing.T, root string) []string {
	t.Helper()
	tmp := t.TempDir()
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
	cliConfig := filepath.Join(tmp, "cli.tfrc")
	cfg := "provider_installation {\n  dev_overrides {\n" +
		"    \"registry.opentofu.org/deckhouse/deckhouse\" = \"" + plugins + "\"\n" +
		"    \"registry.terraform.io/deckhouse/deckhouse\" = \"" + plugins + "\"\n" +
		"  }\n  direct {}\n}\n"
	if err := os.WriteFile(cliConfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "KUBE") || strings.HasPrefix(name, "DECKHOUSE_") || strings.HasPrefix(name, "TF_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		// Nothing listens there: a check that read the cluster would fail
		// the plan, not defer to apply.
		"KUBE_HOST=https://127.0.0.1:1",
		"DECKHOUSE_PLAN_CHECKS=required",
		"DECKHOUSE_REQUEST_TIMEOUT=5s",
	)
}
