package dpclient

import (
	"context"
	"encoding/pem"
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: one
  cluster:
    server: https://one.example:6443
- name: two
  cluster:
    server: https://two.example:6443
users:
- name: admin
  user:
    token: secret-token
contexts:
- name: one
  context: {cluster: one, user: admin}
- name: two
  context: {cluster: two, user: admin}
current-context: one
`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// notInPod is an in-cluster source outside a pod.
var notInPod = InClusterSource{Dir: "/nonexistent", Getenv: func(string) string { return "" }}

func inPod(dir, host, port string) InClusterSource {
	return InClusterSource{Dir: dir, Getenv: func(k string) string {
		switch k {
		case "KUBERNETES_SERVICE_HOST":
			return host
		case "KUBERNETES_SERVICE_PORT":
			return port
		}
		return ""
	}}
}

func TestConfig_KubeconfigWithOverrides(t *testing.T) {
	dir := t.TempDir()
	kc := writeFile(t, dir, "kubeconfig", testKubeconfig)
	tests := []struct {
		name      string
		cfg       Config
		wantHost  string
		wantToken string
	}{
		{"current context", Config{ConfigPaths: []string{kc}}, "https://one.example:6443", "secret-token"},
		{"chosen context", Config{ConfigPaths: []string{kc}, ConfigContext: "two"}, "https://two.example:6443", "secret-token"},
		{"host overrides the kubeconfig", Config{ConfigPaths: []string{kc}, Host: "https://x.example"}, "https://x.example", "secret-token"},
		{"token overrides the kubeconfig", Config{ConfigPaths: []string{kc}, Token: "t2"}, "https://one.example:6443", "t2"},
		{"explicit settings alone", Config{Host: "https://h.example", Token: "t"}, "https://h.example", "t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.InCluster = notInPod
			tt.cfg.QPS, tt.cfg.Burst, tt.cfg.UserAgent = 7, 9, "ua/1"
			cfg, err := tt.cfg.RESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost || cfg.BearerToken != tt.wantToken {
				t.Fatalf("host=%s token=%s", cfg.Host, cfg.BearerToken)
			}
			if cfg.QPS != 7 || cfg.Burst != 9 || cfg.UserAgent != "ua/1" {
				t.Fatalf("qps=%v burst=%v ua=%s", cfg.QPS, cfg.Burst, cfg.UserAgent)
			}
			if cfg.Insecure {
				t.Fatal("TLS verification is off by default")
			}
		})
	}
}

func TestConfig_ExecPluginWithSortedEnv(t *testing.T) {
	c := Config{Host: "https://h.example", InCluster: notInPod, Exec: &ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: "get-token", Args: []string{"--x"},
		Env: map[string]string{"B": "2", "A": "1"},
	}}
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	x := cfg.ExecProvider
	if x == nil || x.Command != "get-token" || len(x.Args) != 1 || len(x.Env) != 2 || x.Env[0].Name != "A" {
		t.Fatalf("exec: %+v", x)
	}
}

func TestConfig_ErrorsAreConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad", "apiVersion: v1\nkind: Config\ncurrent-context: missing\n")
	tests := []struct {
		name       string
		cfg        Config
		noCluster  bool
		notExist   bool
		wantSubstr string
	}{
		{"nothing names a cluster outside a pod", Config{InCluster: notInPod}, true, false, "not a Kubernetes pod"},
		{"context settings alone name no cluster", Config{ConfigContext: "x", Token: "t", InCluster: notInPod}, true, false, "no cluster is configured"},
		{"in a pod without a service account token", Config{InCluster: inPod(dir, "10.0.0.1", "443")}, true, true, "service account token"},
		{"missing kubeconfig file", Config{ConfigPaths: []string{filepath.Join(dir, "absent")}}, false, true, "absent"},
		{"one missing file of several", Config{ConfigPaths: []string{bad, filepath.Join(dir, "absent")}}, false, true, "absent"},
		{"kubeconfig context that does not exist", Config{ConfigPaths: []string{bad}}, false, false, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.RESTConfig()
			if err == nil {
				t.Fatal("no error")
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%T is not a *ConfigError: %v", err, err)
			}
			if got := errors.Is(err, ErrNoCluster); got != tt.noCluster {
				t.Fatalf("errors.Is(ErrNoCluster) = %v: %v", got, err)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Fatalf("errors.Is(fs.ErrNotExist) = %v: %v", got, err)
			}
			if !strings.Contains(err.Error(), tt.wantSubstr) {
				t.Fatalf("message %q lacks %q", err, tt.wantSubstr)
			}
		})
	}
}

// tlsServer is an API server stand-in that answers 200 to requests that carry
// the bearer token want and 401 to others.
func tlsServer(t *testing.T, want string) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+want {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv, string(ca)
}

func get(t *testing.T, cfg *rest.Config, ctx context.Context, path string) int {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestConfig_InClusterIsTheLastFallback(t *testing.T) {
	srv, ca := tlsServer(t, "sa-token")
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	dir := t.TempDir()
	writeFile(t, dir, "token", "sa-token")
	writeFile(t, dir, "ca.crt", ca)
	kc := writeFile(t, t.TempDir(), "kubeconfig", testKubeconfig)

	tests := []struct {
		name     string
		cfg      Config
		wantHost string
	}{
		{"nothing configured: the pod's service account", Config{}, srv.URL},
		{"a kubeconfig file wins", Config{ConfigPaths: []string{kc}}, "https://one.example:6443"},
		{"a host wins", Config{Host: "https://h.example", Token: "t"}, "https://h.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.InCluster = inPod(dir, host, port)
			cfg, err := tt.cfg.RESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost {
				t.Fatalf("host = %s, want %s", cfg.Host, tt.wantHost)
			}
		})
	}

	t.Run("the service account authenticates over TLS with the pod's CA", func(t *testing.T) {
		c := Config{InCluster: inPod(dir, host, port)}
		cfg, err := c.RESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.BearerTokenFile != filepath.Join(dir, "token") {
			t.Fatalf("the token is not read from its file (rotation): %q", cfg.BearerTokenFile)
		}
		if got := get(t, cfg, context.Background(), "/api"); got != http.StatusOK {
			t.Fatalf("status %d", got)
		}
	})

	t.Run("an explicit token replaces the service account's", func(t *testing.T) {
		c := Config{Token: "other", InCluster: inPod(t.TempDir(), host, port)}
		writeFile(t, c.InCluster.Dir, "ca.crt", ca)
		cfg, err := c.RESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.BearerToken != "other" || cfg.BearerTokenFile != "" {
			t.Fatalf("token=%q file=%q", cfg.BearerToken, cfg.BearerTokenFile)
		}
	})
}

type ctxKey struct{}

func TestConfig_LogRequestSeesMethodURLStatusAndDurationOnly(t *testing.T) {
	srv, ca := tlsServer(t, "tok")
	var (
		mu  sync.Mutex
		got []Request
		ctx []any
	)
	c := Config{Host: srv.URL, Token: "tok", ClusterCACertificate: ca, LogRequest: func(c context.Context, r Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r)
		ctx = append(ctx, c.Value(ctxKey{}))
	}}
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	reqCtx := context.WithValue(context.Background(), ctxKey{}, "op")
	get(t, cfg, reqCtx, "/apis/deckhouse.io/v1alpha1/namespaces/ns/applications?labelSelector=a%3Db")
	c.Token = "wrong"
	cfg, _ = c.RESTConfig()
	get(t, cfg, reqCtx, "/api")

	if len(got) != 2 {
		t.Fatalf("%d requests logged, want 2", len(got))
	}
	want := []Request{
		{Method: "GET", URL: srv.URL + "/apis/deckhouse.io/v1alpha1/namespaces/ns/applications?labelSelector=a%3Db", Status: 200},
		{Method: "GET", URL: srv.URL + "/api", Status: 401},
	}
	for i, w := range want {
		g := got[i]
		if g.Method != w.Method || g.URL != w.URL || g.Status != w.Status || g.Err != nil || g.Duration <= 0 {
			t.Errorf("request %d: got %+v, want %+v", i, g, w)
		}
		if ctx[i] != "op" {
			t.Errorf("request %d: the hook did not get the request's context", i)
		}
		for _, secret := range []string{"tok", "wrong", "Bearer"} {
			if strings.Contains(g.URL, secret) {
				t.Errorf("request %d: URL carries %q", i, secret)
			}
		}
	}
}

func TestConfig_LogRequestReportsTransportErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	var got []Request
	c := Config{Host: "http://" + addr, LogRequest: func(_ context.Context, r Request) { got = append(got, r) }}
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	hc, _ := rest.HTTPClientFor(cfg)
	if _, err := hc.Get(cfg.Host + "/api"); err == nil {
		t.Fatal("the request succeeded")
	}
	if len(got) != 1 || got[0].Status != 0 || got[0].Err == nil {
		t.Fatalf("got %+v", got)
	}
}

func TestPackage_ImportsNothingFromTerraform(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/hashicorp/terraform-") {
				t.Errorf("%s imports %s: dpclient is client-go only", name, p)
			}
		}
	}
}
