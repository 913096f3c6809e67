package provider

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// layOutMirror lays out the provider binary the CLI tests run as version
// 0.1.0 of a filesystem mirror in dir, with tools/mirror.sh (what
// `make mirror` runs).
func layOutMirror(t *testing.T, dir string) {
	t.Helper()
	_, thisFile, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(thisFile), "..", ".."))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "tools", "mirror.sh"), dir, "0.1.0")
	cmd.Env = append(os.Environ(), "MIRROR_BINARY="+providerBinary(t, false))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tools/mirror.sh: %v\n%s", err, out)
	}
}

// TestAccInstall_InitFromFilesystemMirror installs the provider as a
// pipeline does: `init` of a configuration with a backend block and a
// version constraint, against a filesystem mirror laid out by tools/mirror.sh,
// with no dev_overrides; then `init -lockfile=readonly` in a fresh checkout
// that has only the lock file, then `plan` against the cluster. Two ways of
// pointing the CLI at the mirror, both adding to the user's CLI configuration
// instead of replacing it: the implied local mirror ~/.terraform.d/plugins
// (no provider_installation block anywhere), and a provider_installation
// block in a drop-in file ~/.terraform.d/*.tfrc next to a main CLI
// configuration that keeps its own settings (a plugin cache here).
func TestAccInstall_InitFromFilesystemMirror(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs OpenTofu and the local control plane (TF_ACC=1)")
	}
	tests := []struct {
		name string
		// setup prepares home and returns the folder to lay the mirror out in.
		setup func(t *testing.T, home string) string
		check func(t *testing.T, home string)
	}{
		{
			name: "implied local mirror",
			setup: func(t *testing.T, home string) string {
				return filepath.Join(home, ".terraform.d", "plugins")
			},
		},
		{
			name: "drop-in provider_installation beside the user's configuration",
			setup: func(t *testing.T, home string) string {
				mirror := filepath.Join(home, "mirror")
				// The user's main CLI configuration (OpenTofu's and Terraform's name).
				for _, rc := range []string{".tofurc", ".terraformrc"} {
					writeFile(t, filepath.Join(home, rc), "plugin_cache_dir = \""+filepath.Join(home, "plugin-cache")+"\"\n")
				}
				writeFile(t, filepath.Join(home, "plugin-cache", ".keep"), "")
				writeFile(t, filepath.Join(home, ".terraform.d", "deckhouse.tfrc"), `provider_installation {
  filesystem_mirror {
    path    = "`+mirror+`"
    include = ["registry.opentofu.org/deckhouse/deckhouse", "registry.terraform.io/deckhouse/deckhouse"]
  }
  direct {
    exclude = ["registry.opentofu.org/deckhouse/deckhouse", "registry.terraform.io/deckhouse/deckhouse"]
  }
}
`)
				return mirror
			},
			check: func(t *testing.T, home string) {
				// The main configuration still applies: init filled its plugin cache.
				cached, _ := filepath.Glob(filepath.Join(home, "plugin-cache", "registry.*", "deckhouse", "deckhouse", "0.1.0"))
				if len(cached) == 0 {
					t.Error("the plugin cache of the user's CLI configuration was not used")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAccEnv(t)
			home := t.TempDir()
			layOutMirror(t, tt.setup(t, home))
			// An empty TF_CLI_CONFIG_FILE: the CLI reads the user's files from HOME.
			c := newTofuCLI(t, false, "HOME="+home, "TF_CLI_CONFIG_FILE=", "XDG_CONFIG_HOME=", "XDG_DATA_HOME=")
			cfg := `terraform {
  backend "local" {
    path = "state/terraform.tfstate"
  }
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}
` + e.config(`  settings = { replicas = 2 }`)
			writeFile(t, filepath.Join(c.dir, "main.tf"), cfg)

			c.must("init", "-input=false", "-no-color")
			lock := c.file(".terraform.lock.hcl")
			if !strings.Contains(lock, `/deckhouse/deckhouse" {`) || !strings.Contains(lock, `version     = "0.1.0"`) {
				t.Fatalf("the lock file does not pin deckhouse/deckhouse 0.1.0:\n%s", lock)
			}

			// A fresh checkout: the configuration and the lock file only.
			if err := os.RemoveAll(filepath.Join(c.dir, ".terraform")); err != nil {
				t.Fatal(err)
			}
			c.must("init", "-input=false", "-no-color", "-lockfile=readonly")
			if got := c.file(".terraform.lock.hcl"); got != lock {
				t.Fatalf("init -lockfile=readonly changed the lock file:\n%s", got)
			}
			res := c.run(nil, "plan", "-detailed-exitcode")
			if res.Code != 2 || !outputHas(res, "1 to add") {
				t.Fatalf("plan: exit %d, want 2 with one Application to add:\n%s", res.Code, res.Output())
			}
			if tt.check != nil {
				tt.check(t, home)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
