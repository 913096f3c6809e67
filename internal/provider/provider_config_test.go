package provider

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// TestConfigure_KubeconfigEnvIsReadWhenNothingElseNamesACluster: with an
// empty provider block and only KUBECONFIG set, the connection is the
// kubeconfig's; a KUBE_* variable or the block wins over it; with nothing
// set, the "no cluster" error names KUBECONFIG.
func TestConfigure_KubeconfigEnvIsReadWhenNothingElseNamesACluster(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://from-kubeconfig.example}\n" +
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		env      env
		wantHost string
	}{
		{"KUBECONFIG alone", env{"KUBECONFIG": kc}, "https://from-kubeconfig.example"},
		{"KUBE_HOST wins", env{"KUBECONFIG": kc, "KUBE_HOST": "https://kube-host.example", "KUBE_TOKEN": "x"}, "https://kube-host.example"},
		{"KUBE_CONFIG_PATH wins", env{"KUBECONFIG": filepath.Join(dir, "missing"), "KUBE_CONFIG_PATH": kc}, "https://from-kubeconfig.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := testData(t, nullModel(), tt.env).Conn.RESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			if c.Host != tt.wantHost {
				t.Fatalf("host = %s, want %s", c.Host, tt.wantHost)
			}
		})
	}
	_, err := testData(t, nullModel(), env{}).Client(context.Background())
	if !errors.Is(err, dpclient.ErrNoCluster) || !strings.Contains(err.Error(), "KUBECONFIG") {
		t.Fatalf("with nothing set: %v, want ErrNoCluster naming KUBECONFIG", err)
	}
}
