package provider

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/client-go/rest"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
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

var execAttrTypes = map[string]attr.Type{
	"api_version": types.StringType, "command": types.StringType,
	"args": types.ListType{ElemType: types.StringType}, "env": types.MapType{ElemType: types.StringType},
}

func nullModel() providerModel {
	return providerModel{
		ConfigPath: types.StringNull(), ConfigPaths: types.ListNull(types.StringType),
		ConfigContext: types.StringNull(), ConfigContextAuthInfo: types.StringNull(), ConfigContextCluster: types.StringNull(),
		Host: types.StringNull(), Username: types.StringNull(), Password: types.StringNull(), Token: types.StringNull(),
		ClientCertificate: types.StringNull(), ClientKey: types.StringNull(), ClusterCACertificate: types.StringNull(),
		Insecure: types.BoolNull(), TLSServerName: types.StringNull(), ProxyURL: types.StringNull(),
		Exec:         types.ListNull(types.ObjectType{AttrTypes: execAttrTypes}),
		FieldManager: types.StringNull(), ForceConflicts: types.BoolNull(), QPS: types.Float64Null(), Burst: types.Int64Null(),
		PlanChecks: types.StringNull(), RequestTimeout: types.StringNull(), ImportSettings: types.StringNull(),
	}
}

// env is an environment for providerDataFromModel.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// testData resolves a model in an environment, outside any pod.
func testData(t *testing.T, m providerModel, e env) *providerdata.Data {
	t.Helper()
	data, diags := providerDataFromModel(context.Background(), &m, e.get)
	if diags.HasError() {
		t.Fatalf("diagnostics: %v", diags)
	}
	data.Conn.InCluster = dpclient.InClusterSource{Dir: t.TempDir(), Getenv: func(string) string { return "" }}
	return data
}

func TestProviderData_NoClusterConfiguredIsAMisconfiguration(t *testing.T) {
	p := testData(t, nullModel(), nil)
	if p.ConfigUnknown() {
		t.Fatal("an empty configuration is reported unknown")
	}
	_, err := p.Client(context.Background())
	var ce *dpclient.ConfigError
	if !errors.Is(err, dpclient.ErrNoCluster) || !errors.As(err, &ce) {
		t.Fatalf("got %v, want a ConfigError wrapping ErrNoCluster", err)
	}
	if !strings.Contains(err.Error(), "config_path") {
		t.Fatalf("the error does not say how to configure a cluster: %v", err)
	}
}

func TestProviderData_UnknownConfigurationIsReported(t *testing.T) {
	m := nullModel()
	m.Host = types.StringUnknown()
	p := testData(t, m, nil)
	if !p.ConfigUnknown() {
		t.Fatal("ConfigUnknown = false")
	}
	if _, err := p.Client(context.Background()); !errors.Is(err, providerdata.ErrConfigUnknown) {
		t.Fatalf("got %v, want providerdata.ErrConfigUnknown", err)
	}
}

func TestProviderData_KubeconfigContextAndLimitsAndOneSharedClient(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte(testKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	m := nullModel()
	m.ConfigPath = types.StringValue(kc)
	m.ConfigContext = types.StringValue("two")
	m.QPS = types.Float64Value(7)
	m.Burst = types.Int64Value(9)
	p := testData(t, m, nil)
	cfg, err := restConfigOf(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://two.example:6443" || cfg.BearerToken != "secret-token" || cfg.QPS != 7 || cfg.Burst != 9 {
		t.Fatalf("config: host=%s qps=%v burst=%v", cfg.Host, cfg.QPS, cfg.Burst)
	}
	c1, err := p.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := p.Client(context.Background())
	if c1 != c2 {
		t.Fatal("the cluster client is not shared")
	}
}

func TestProviderData_MissingKubeconfigFileIsAMisconfiguration(t *testing.T) {
	m := nullModel()
	m.ConfigPath = types.StringValue(filepath.Join(t.TempDir(), "absent"))
	p := testData(t, m, nil)
	_, err := p.Client(context.Background())
	var ce *dpclient.ConfigError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &ce) || errors.Is(err, dpclient.ErrNoCluster) {
		t.Fatalf("got %v, want a ConfigError wrapping fs.ErrNotExist", err)
	}
}

// restConfigOf is the client configuration the provider data builds.
func restConfigOf(p *providerdata.Data) (*rest.Config, error) {
	cl, err := p.Client(context.Background())
	if err != nil {
		return nil, err
	}
	return cl.RESTConfig(), nil
}
