package provider

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// testAccProtoV6ProviderFactories runs the provider in-process for acceptance tests.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"deckhouse": func() (tfprotov6.ProviderServer, error) { return ProtocolServer("test")(), nil },
}

// The shared local control plane of this test binary, started on first use.
var (
	cpOnce sync.Once
	cpMu   sync.Mutex
	cpInst *localdp.ControlPlane
	cpErr  error
)

// TestMain points terraform-plugin-testing at the OpenTofu binary of the
// tools cache and stops the shared control plane after the tests, also on
// SIGINT/SIGTERM and on a panic of the main test goroutine.
func TestMain(m *testing.M) {
	cleanup, err := setupTestEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "test environment:", err)
		os.Exit(1)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "received %s: stopping the local control plane\n", s)
		stopTestControlPlane()
		cleanup()
		os.Exit(1)
	}()

	code := func() (code int) {
		defer func() {
			if r := recover(); r != nil {
				stopTestControlPlane()
				panic(r)
			}
		}()
		return m.Run()
	}()
	stopTestControlPlane()
	cleanup()
	os.Exit(code)
}

// setupTestEnv sets the environment OpenTofu needs under
// terraform-plugin-testing, keeping values the caller already set.
func setupTestEnv() (func(), error) {
	setDefault := func(k, v string) {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	setDefault("TF_ACC_TERRAFORM_PATH", filepath.Join(localdp.ResolveBinDir(""), "tofu"))
	setDefault("TF_ACC_PROVIDER_HOST", "registry.opentofu.org")
	setDefault("TF_ACC_PROVIDER_NAMESPACE", "deckhouse")
	setDefault("CHECKPOINT_DISABLE", "1")

	cleanup := func() {}
	// A CLI config file that does not exist makes tofu print a warning that
	// breaks the version parsing of terraform-exec: use a real, empty one.
	if f := os.Getenv("TF_CLI_CONFIG_FILE"); f == "" || !fileExists(f) {
		dir, err := os.MkdirTemp("", "deckhouse-tofurc")
		if err != nil {
			return nil, err
		}
		rc := filepath.Join(dir, "tofurc")
		if err := os.WriteFile(rc, nil, 0o600); err != nil {
			return nil, err
		}
		os.Setenv("TF_CLI_CONFIG_FILE", rc)
		cleanup = func() { os.RemoveAll(dir) }
	}
	return cleanup, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// testControlPlane returns the local DP control plane shared by the tests of
// this binary, starting it on first use.
func testControlPlane(t *testing.T) *localdp.ControlPlane {
	t.Helper()
	cpOnce.Do(func() {
		cp, err := localdp.Start(context.Background(), localdp.Options{})
		cpMu.Lock()
		cpInst, cpErr = cp, err
		cpMu.Unlock()
	})
	cpMu.Lock()
	defer cpMu.Unlock()
	if cpErr != nil {
		t.Fatalf("starting the local control plane: %v", cpErr)
	}
	return cpInst
}

func stopTestControlPlane() {
	cpMu.Lock()
	cp := cpInst
	cpInst = nil
	cpMu.Unlock()
	if cp != nil {
		if err := cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the local control plane:", err)
		}
	}
}

// testAccPreCheck fails fast when the acceptance toolchain is missing.
func testAccPreCheck(t *testing.T) {
	t.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); !fileExists(p) {
		t.Fatalf("tofu not found at %s: run make tools", p)
	}
}
