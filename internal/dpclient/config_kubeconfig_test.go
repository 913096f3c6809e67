package dpclient

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfig_KubeconfigEnvIsTheFallbackBeforeInCluster: when neither a
// kubeconfig file nor a host is configured, the files KUBECONFIG names are
// read (merged in order, as kubectl merges them), before the in-cluster
// configuration; anything the provider configuration names wins over it.
func TestConfig_KubeconfigEnvIsTheFallbackBeforeInCluster(t *testing.T) {
	dir := t.TempDir()
	kc := writeFile(t, dir, "kubeconfig", testKubeconfig)
	other := writeFile(t, dir, "other", strings.ReplaceAll(testKubeconfig, "current-context: one", "current-context: two"))
	podHost := "10.0.0.1"
	writeFile(t, dir, "token", "pod-token")
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "KUBECONFIG" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name     string
		cfg      Config
		wantHost string
	}{
		{"KUBECONFIG alone", Config{Getenv: env(kc)}, "https://one.example:6443"},
		{"KUBECONFIG with a context", Config{Getenv: env(kc), ConfigContext: "two"}, "https://two.example:6443"},
		{"KUBECONFIG lists files: the first wins", Config{Getenv: env(other + string(filepath.ListSeparator) + kc)}, "https://two.example:6443"},
		{"empty entries are skipped", Config{Getenv: env(string(filepath.ListSeparator) + kc)}, "https://one.example:6443"},
		{"KUBECONFIG wins over the in-cluster configuration", Config{Getenv: env(kc), InCluster: inPod(dir, podHost, "443")}, "https://one.example:6443"},
		{"config_path wins over KUBECONFIG", Config{Getenv: env(other), ConfigPaths: []string{kc}}, "https://one.example:6443"},
		{"host wins over KUBECONFIG", Config{Getenv: env(kc), Host: "https://h.example", Token: "t"}, "https://h.example"},
		{"no KUBECONFIG: in-cluster", Config{Getenv: env(""), InCluster: inPod(dir, podHost, "443")}, "https://10.0.0.1:443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cfg.InCluster.Getenv == nil {
				tt.cfg.InCluster = notInPod
			}
			cfg, err := tt.cfg.RESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost {
				t.Fatalf("host = %s, want %s", cfg.Host, tt.wantHost)
			}
		})
	}
}

// TestConfig_KubeconfigEnvNamingAMissingFileIsAMisconfiguration: the error
// names KUBECONFIG and the file, and is the configuration's error.
func TestConfig_KubeconfigEnvNamingAMissingFileIsAMisconfiguration(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	c := Config{InCluster: notInPod, Getenv: func(k string) string {
		if k == "KUBECONFIG" {
			return missing
		}
		return ""
	}}
	_, err := c.RESTConfig()
	var cfgErr *ConfigError
	if !errors.As(err, &cfgErr) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want a ConfigError wrapping fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), "KUBECONFIG") || !strings.Contains(err.Error(), missing) {
		t.Fatalf("the error does not name KUBECONFIG and the file: %v", err)
	}
}

// TestConfig_NoClusterErrorNamesKubeconfigEnv: with nothing set, the error
// says KUBECONFIG was looked at too.
func TestConfig_NoClusterErrorNamesKubeconfigEnv(t *testing.T) {
	c := Config{InCluster: notInPod, Getenv: func(string) string { return "" }}
	_, err := c.RESTConfig()
	if !errors.Is(err, ErrNoCluster) || !strings.Contains(err.Error(), "KUBECONFIG") {
		t.Fatalf("err = %v, want ErrNoCluster naming KUBECONFIG", err)
	}
}
