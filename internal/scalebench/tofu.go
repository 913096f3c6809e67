package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// providerBinaryName is the file name tofu's dev_overrides expect in the folder.
const providerBinaryName = "terraform-provider-deckhouse"

// Provider source addresses the CLI configuration overrides.
var providerAddresses = []string{
	"registry.opentofu.org/deckhouse/deckhouse",
	"registry.terraform.io/deckhouse/deckhouse",
}

// The CLIs the benchmark runs (-cli).
const (
	cliTofu      = "tofu"
	cliTerraform = "terraform"
)

// findCLI returns the binary of the CLI named by -cli: for "tofu", tofu in
// the folder of the toolchain (localdp.ResolveBinDir); for "terraform",
// terraform on the PATH; any other value is a path to either.
func findCLI(name string) (string, error) {
	switch name {
	case cliTofu:
		p := filepath.Join(localdp.ResolveBinDir(""), "tofu")
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", fmt.Errorf("tofu not found at %s: run make tools (or set %s)", p, localdp.EnvToolsBin)
		}
		return p, nil
	case cliTerraform:
		p, err := exec.LookPath("terraform")
		if err != nil {
			return "", fmt.Errorf("terraform not found on the PATH: %w", err)
		}
		return p, nil
	}
	if fi, err := os.Stat(name); err != nil || fi.IsDir() {
		return "", fmt.Errorf("-cli %s: not tofu, terraform or a CLI binary", name)
	}
	return name, nil
}

// cliVersion is the line of the CLI's "version" output naming it, e.g.
// "OpenTofu v1.12.6" or "Terraform v1.11.4".
func cliVersion(ctx context.Context, bin string) string {
	cmd := exec.CommandContext(ctx, bin, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, _ := cmd.Output()
	return versionLine(string(out), filepath.Base(bin))
}

// versionLine is the line of a CLI's version output that names the CLI
// (warnings may come first), else name with "(version unknown)".
func versionLine(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "OpenTofu v") || strings.HasPrefix(line, "Terraform v") {
			return line
		}
	}
	return name + " (version unknown)"
}

// moduleRoot is the folder of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the provider module: run from the repository")
	}
	return filepath.Dir(gomod), nil
}

// buildBinary builds the Go package pkg (relative to root) into dir under the
// provider's file name and returns its path.
func buildBinary(ctx context.Context, root, dir, pkg string) (string, error) {
	out := filepath.Join(dir, providerBinaryName)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return out, nil
}

// cliConfig renders a tofu CLI configuration that runs the provider from dir.
func cliConfig(dir string) string {
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, a := range providerAddresses {
		fmt.Fprintf(&b, "    %s = %s\n", strconv.Quote(a), strconv.Quote(dir))
	}
	b.WriteString("  }\n  direct {}\n}\n")
	return b.String()
}

// tofuRunner runs CLI (tofu or terraform) commands in working folders with a
// fixed environment.
type tofuRunner struct {
	bin string
	env []string
}

func newTofuRunner(bin, cliConfigPath string) *tofuRunner {
	drop := map[string]bool{"TF_CLI_CONFIG_FILE": true, "TF_LOG": true, "TF_LOG_PATH": true,
		"TF_LOG_PROVIDER": true, "TF_LOG_CORE": true, "TF_PLUGIN_CACHE_DIR": true, "TF_DATA_DIR": true,
		"KUBECONFIG": true, "KUBE_CONFIG_PATH": true}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] || strings.HasPrefix(k, "TF_VAR_") || strings.HasPrefix(k, "KUBE_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"TF_CLI_CONFIG_FILE="+cliConfigPath,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
	)
	return &tofuRunner{bin: bin, env: env}
}

// runCPU executes tofu with args in dir, appending its output to logPath,
// and returns the exit code, the wall time and the CPU time (user + system)
// of tofu and of the processes it waited for (its providers). The whole
// process group (tofu and the providers it starts) is killed when ctx ends.
func (r *tofuRunner) runCPU(ctx context.Context, dir, logPath string, args ...string) (code int, wall, cpu time.Duration, err error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return -1, 0, 0, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "\n$ %s %s\n", filepath.Base(r.bin), strings.Join(args, " "))

	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = dir
	cmd.Env = r.env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second

	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0, wall, cpu, nil
	case errors.As(err, &exitErr) && ctx.Err() == nil:
		return exitErr.ExitCode(), wall, cpu, nil
	default:
		return -1, wall, cpu, err
	}
}

// tailFile returns the last n lines of a file, for error messages.
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
