package provider

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

func nullModel() providerModel {
	return providerModel{
		ConfigPath: types.StringNull(), ConfigPaths: types.ListNull(types.StringType),
		ConfigContext: types.StringNull(), ConfigContextAuthInfo: types.StringNull(), ConfigContextCluster: types.StringNull(),
		Host: types.StringNull(), Username: types.StringNull(), Password: types.StringNull(), Token: types.StringNull(),
		ClientCertificate: types.StringNull(), ClientKey: types.StringNull(), ClusterCACertificate: types.StringNull(),
		Insecure: types.BoolNull(), TLSServerName: types.StringNull(), ProxyURL: types.StringNull(),
		Exec:         types.ListNull(types.ObjectType{AttrTypes: map[string]attr.Type{"api_version": types.StringType, "command": types.StringType, "args": types.ListType{ElemType: types.StringType}, "env": types.MapType{ElemType: types.StringType}}}),
		FieldManager: types.StringNull(), ForceConflicts: types.BoolNull(), QPS: types.Float64Null(), Burst: types.Int64Null(),
	}
}

func clearKubeEnv(t *testing.T) {
	for _, k := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBE_CTX", "KUBE_CTX_AUTH_INFO", "KUBE_CTX_CLUSTER",
		"KUBE_HOST", "KUBE_USER", "KUBE_PASSWORD", "KUBE_TOKEN", "KUBE_CLIENT_CERT_DATA", "KUBE_CLIENT_KEY_DATA",
		"KUBE_CLUSTER_CA_CERT_DATA", "KUBE_INSECURE", "KUBE_TLS_SERVER_NAME", "KUBE_PROXY_URL"} {
		t.Setenv(k, "")
	}
}

func TestUnitProviderData_NoClusterConfiguredIsAClearError(t *testing.T) {
	clearKubeEnv(t)
	m := nullModel()
	conn, unknown := connectionFromModel(context.Background(), &m)
	if unknown {
		t.Fatal("an empty configuration is reported unknown")
	}
	p := &ProviderData{conn: conn}
	if _, err := p.Dynamic(context.Background()); !errors.Is(err, errNoCluster) {
		t.Fatalf("got %v, want errNoCluster", err)
	}
}

func TestUnitProviderData_UnknownConfigurationIsReported(t *testing.T) {
	clearKubeEnv(t)
	m := nullModel()
	m.Host = types.StringUnknown()
	conn, unknown := connectionFromModel(context.Background(), &m)
	p := &ProviderData{conn: conn, unknown: unknown}
	if !p.ConfigUnknown() {
		t.Fatal("ConfigUnknown = false")
	}
	if _, err := p.Dynamic(context.Background()); !errors.Is(err, errConfigUnknown) {
		t.Fatalf("got %v, want errConfigUnknown", err)
	}
}

func TestUnitProviderData_KubeconfigContextAndLimits(t *testing.T) {
	clearKubeEnv(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte(testKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	m := nullModel()
	m.ConfigPath = types.StringValue(kc)
	m.ConfigContext = types.StringValue("two")
	m.QPS = types.Float64Value(7)
	m.Burst = types.Int64Value(9)
	conn, unknown := connectionFromModel(context.Background(), &m)
	if unknown {
		t.Fatal("unknown")
	}
	p := &ProviderData{conn: conn}
	cfg, err := p.RESTConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://two.example:6443" || cfg.BearerToken != "secret-token" || cfg.QPS != 7 || cfg.Burst != 9 {
		t.Fatalf("config: host=%s qps=%v burst=%v", cfg.Host, cfg.QPS, cfg.Burst)
	}
	if cfg.Insecure {
		t.Fatal("TLS verification is off by default")
	}
	d1, err := p.Dynamic(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := p.Dynamic(context.Background())
	if d1 != d2 {
		t.Fatal("the dynamic client is not shared")
	}
}

func TestUnitProviderData_EnvironmentAndExplicitAttributes(t *testing.T) {
	clearKubeEnv(t)
	t.Setenv("KUBE_HOST", "https://env.example:6443")
	t.Setenv("KUBE_TOKEN", "env-token")
	t.Setenv("KUBE_INSECURE", "true")
	m := nullModel()
	execType := map[string]attr.Type{
		"api_version": types.StringType, "command": types.StringType,
		"args": types.ListType{ElemType: types.StringType}, "env": types.MapType{ElemType: types.StringType},
	}
	m.Exec = types.ListValueMust(types.ObjectType{AttrTypes: execType}, []attr.Value{types.ObjectValueMust(execType, map[string]attr.Value{
		"api_version": types.StringValue("client.authentication.k8s.io/v1"),
		"command":     types.StringValue("get-token"),
		"args":        types.ListValueMust(types.StringType, []attr.Value{types.StringValue("--x")}),
		"env":         types.MapValueMust(types.StringType, map[string]attr.Value{"A": types.StringValue("1")}),
	})})
	conn, _ := connectionFromModel(context.Background(), &m)
	cfg, err := conn.restConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://env.example:6443" || cfg.BearerToken != "env-token" || !cfg.Insecure {
		t.Fatalf("environment not applied: host=%s insecure=%v", cfg.Host, cfg.Insecure)
	}
	if cfg.ExecProvider == nil || cfg.ExecProvider.Command != "get-token" || len(cfg.ExecProvider.Env) != 1 {
		t.Fatalf("exec not applied: %+v", cfg.ExecProvider)
	}
	m.Host = types.StringValue("https://explicit.example")
	conn, _ = connectionFromModel(context.Background(), &m)
	if conn.Host != "https://explicit.example" {
		t.Fatal("the configuration does not win over the environment")
	}
}

func TestUnitProviderData_MissingKubeconfigFile(t *testing.T) {
	clearKubeEnv(t)
	m := nullModel()
	m.ConfigPath = types.StringValue(filepath.Join(t.TempDir(), "absent"))
	conn, _ := connectionFromModel(context.Background(), &m)
	if _, err := conn.restConfig(); err == nil {
		t.Fatal("a missing kubeconfig file is accepted")
	}
}
