package provider

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

func summaries(d diag.Diagnostics) []string {
	var s []string
	for _, x := range d {
		s = append(s, x.Severity().String()+": "+x.Summary())
	}
	return s
}

func hasDiag(d diag.Diagnostics, severity diag.Severity, summary string) bool {
	return slices.ContainsFunc(d, func(x diag.Diagnostic) bool {
		return x.Severity() == severity && strings.Contains(x.Summary(), summary)
	})
}

func TestConfigure_EnvironmentVariablesThatDoNotParseAreErrorsNamingThem(t *testing.T) {
	tests := []struct {
		name string
		env  env
		want string
	}{
		{"KUBE_INSECURE not a boolean", env{"KUBE_INSECURE": "yes please"}, "KUBE_INSECURE"},
		{"DECKHOUSE_PLAN_CHECKS not a mode", env{"DECKHOUSE_PLAN_CHECKS": "strict"}, "DECKHOUSE_PLAN_CHECKS"},
		{"DECKHOUSE_REQUEST_TIMEOUT not a duration", env{"DECKHOUSE_REQUEST_TIMEOUT": "60"}, "DECKHOUSE_REQUEST_TIMEOUT"},
		{"DECKHOUSE_IMPORT_SETTINGS not a mode", env{"DECKHOUSE_IMPORT_SETTINGS": "all"}, "DECKHOUSE_IMPORT_SETTINGS"},
		{"DECKHOUSE_REQUEST_TIMEOUT not positive", env{"DECKHOUSE_REQUEST_TIMEOUT": "-1s"}, "DECKHOUSE_REQUEST_TIMEOUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := nullModel()
			_, diags := providerDataFromModel(context.Background(), &m, tt.env.get)
			if !diags.HasError() || !hasDiag(diags, diag.SeverityError, tt.want) {
				t.Fatalf("diagnostics %v, want an error naming %s", summaries(diags), tt.want)
			}
			if !strings.Contains(diags.Errors()[0].Detail(), tt.env[tt.want]) {
				t.Fatalf("the detail does not show the value: %s", diags.Errors()[0].Detail())
			}
		})
	}
}

func TestConfigure_TheConfigurationWinsOverAnInvalidEnvironment(t *testing.T) {
	m := nullModel()
	m.Insecure = types.BoolValue(false)
	m.PlanChecks = types.StringValue(providerdata.PlanChecksRequired)
	m.RequestTimeout = types.StringValue("5s")
	e := env{"KUBE_INSECURE": "x", "DECKHOUSE_PLAN_CHECKS": "x", "DECKHOUSE_REQUEST_TIMEOUT": "x"}
	data, diags := providerDataFromModel(context.Background(), &m, e.get)
	if diags.HasError() {
		t.Fatalf("diagnostics: %v", summaries(diags))
	}
	if data.PlanChecks != providerdata.PlanChecksRequired || data.RequestTimeout != 5*time.Second {
		t.Fatalf("plan_checks=%q request_timeout=%v", data.PlanChecks, data.RequestTimeout)
	}
}

func TestConfigure_PlanChecksAndRequestTimeoutResolveConfigThenEnvironmentThenDefault(t *testing.T) {
	tests := []struct {
		name        string
		planChecks  types.String
		timeout     types.String
		env         env
		wantChecks  string
		wantTimeout time.Duration
	}{
		{"defaults", types.StringNull(), types.StringNull(), nil, providerdata.PlanChecksBestEffort, 60 * time.Second},
		{"environment", types.StringNull(), types.StringNull(),
			env{"DECKHOUSE_PLAN_CHECKS": "required", "DECKHOUSE_REQUEST_TIMEOUT": "90s"}, providerdata.PlanChecksRequired, 90 * time.Second},
		{"configuration over environment", types.StringValue("best_effort"), types.StringValue("2m"),
			env{"DECKHOUSE_PLAN_CHECKS": "required", "DECKHOUSE_REQUEST_TIMEOUT": "90s"}, providerdata.PlanChecksBestEffort, 2 * time.Minute},
		{"unknown values fall back to the environment", types.StringUnknown(), types.StringUnknown(),
			env{"DECKHOUSE_PLAN_CHECKS": "required"}, providerdata.PlanChecksRequired, 60 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := nullModel()
			m.PlanChecks, m.RequestTimeout = tt.planChecks, tt.timeout
			data := testData(t, m, tt.env)
			if data.PlanChecks != tt.wantChecks || data.RequestTimeout != tt.wantTimeout {
				t.Fatalf("plan_checks=%q request_timeout=%v", data.PlanChecks, data.RequestTimeout)
			}
			if data.ConfigUnknown() {
				t.Fatal("plan_checks and request_timeout are not connection settings")
			}
		})
	}
}

func TestConfigure_ImportSettingsResolveConfigThenEnvironmentThenOmit(t *testing.T) {
	tests := []struct {
		name     string
		attr     types.String
		env      env
		wantRead bool
	}{
		{"default omits", types.StringNull(), nil, false},
		{"environment reads", types.StringNull(), env{"DECKHOUSE_IMPORT_SETTINGS": "read"}, true},
		{"configuration over environment", types.StringValue("omit"), env{"DECKHOUSE_IMPORT_SETTINGS": "read"}, false},
		{"configuration reads", types.StringValue("read"), nil, true},
		{"unknown falls back to the environment", types.StringUnknown(), env{"DECKHOUSE_IMPORT_SETTINGS": "read"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := nullModel()
			m.ImportSettings = tt.attr
			if data := testData(t, m, tt.env); data.ImportSettingsRead != tt.wantRead {
				t.Fatalf("ImportSettingsRead = %v, want %v", data.ImportSettingsRead, tt.wantRead)
			}
		})
	}
}

func TestConfigure_WarnsWhenCredentialsCanBeSeenOnTheWire(t *testing.T) {
	tests := []struct {
		name string
		set  func(m *providerModel)
		env  env
		want []string // warning summaries
	}{
		{"insecure attribute", func(m *providerModel) { m.Insecure = types.BoolValue(true) }, nil,
			[]string{"TLS verification of the API server is off"}},
		{"KUBE_INSECURE", nil, env{"KUBE_INSECURE": "1"}, []string{"TLS verification of the API server is off (KUBE_INSECURE)"}},
		{"http host attribute", func(m *providerModel) { m.Host = types.StringValue("http://api.example:8080") }, nil,
			[]string{"Unencrypted connection to the API server"}},
		{"http KUBE_HOST", nil, env{"KUBE_HOST": "HTTP://api.example"}, []string{"Unencrypted connection to the API server (KUBE_HOST)"}},
		{"https host and verified TLS", func(m *providerModel) { m.Host = types.StringValue("https://api.example") },
			env{"KUBE_INSECURE": "false"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := nullModel()
			if tt.set != nil {
				tt.set(&m)
			}
			_, diags := providerDataFromModel(context.Background(), &m, tt.env.get)
			if diags.HasError() || len(diags) != len(tt.want) {
				t.Fatalf("diagnostics %v, want warnings %v", summaries(diags), tt.want)
			}
			for _, w := range tt.want {
				if !hasDiag(diags, diag.SeverityWarning, w) {
					t.Fatalf("diagnostics %v, want warning %q", summaries(diags), w)
				}
			}
		})
	}
}

func TestConfigure_KubeconfigPathsComeFromOneSource(t *testing.T) {
	list := func(s ...string) types.List {
		var v []attr.Value
		for _, x := range s {
			v = append(v, types.StringValue(x))
		}
		return types.ListValueMust(types.StringType, v)
	}
	tests := []struct {
		name     string
		set      func(m *providerModel)
		env      env
		want     []string
		wantWarn bool
	}{
		{"config_path", func(m *providerModel) { m.ConfigPath = types.StringValue("a") }, env{"KUBE_CONFIG_PATHS": "x:y"}, []string{"a"}, false},
		{"config_paths", func(m *providerModel) { m.ConfigPaths = list("a", "b") }, env{"KUBE_CONFIG_PATH": "x"}, []string{"a", "b"}, false},
		{"KUBE_CONFIG_PATH wins over KUBE_CONFIG_PATHS", nil, env{"KUBE_CONFIG_PATH": "x", "KUBE_CONFIG_PATHS": "y:z"}, []string{"x"}, true},
		{"KUBE_CONFIG_PATHS", nil, env{"KUBE_CONFIG_PATHS": "y::z"}, []string{"y", "z"}, false},
		{"an empty config_path is unset", func(m *providerModel) { m.ConfigPath = types.StringValue("") }, env{"KUBE_CONFIG_PATH": "x"}, []string{"x"}, false},
		{"an empty config_paths is unset", func(m *providerModel) { m.ConfigPaths = list() }, env{"KUBE_CONFIG_PATHS": "y"}, []string{"y"}, false},
		{"nothing", nil, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := nullModel()
			if tt.set != nil {
				tt.set(&m)
			}
			data, diags := providerDataFromModel(context.Background(), &m, tt.env.get)
			if diags.HasError() || (len(diags) > 0) != tt.wantWarn {
				t.Fatalf("diagnostics %v", summaries(diags))
			}
			if !slices.Equal(data.Conn.ConfigPaths, tt.want) {
				t.Fatalf("paths %q, want %q", data.Conn.ConfigPaths, tt.want)
			}
		})
	}
}

func TestConfigure_EnvironmentAndExplicitAttributes(t *testing.T) {
	m := nullModel()
	m.Exec = types.ListValueMust(types.ObjectType{AttrTypes: execAttrTypes}, []attr.Value{types.ObjectValueMust(execAttrTypes, map[string]attr.Value{
		"api_version": types.StringValue("client.authentication.k8s.io/v1"),
		"command":     types.StringValue("get-token"),
		"args":        types.ListValueMust(types.StringType, []attr.Value{types.StringValue("--x")}),
		"env":         types.MapValueMust(types.StringType, map[string]attr.Value{"A": types.StringValue("1")}),
	})})
	e := env{"KUBE_HOST": "https://env.example:6443", "KUBE_TOKEN": "env-token", "KUBE_INSECURE": "true"}
	cfg, err := restConfigOf(testData(t, m, e))
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
	if got := testData(t, m, e).Conn.Host; got != "https://explicit.example" {
		t.Fatal("the configuration does not win over the environment")
	}
}

// providerConfig is a provider block as the protocol carries it: attrs over
// nulls.
func providerConfig(t *testing.T, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	var resp provider.SchemaResponse
	(&DeckhouseProvider{}).Schema(context.Background(), provider.SchemaRequest{}, &resp)
	typ := resp.Schema.Type().TerraformType(context.Background()).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for k, at := range typ.AttributeTypes {
		vals[k] = tftypes.NewValue(at, nil)
		if v, ok := attrs[k]; ok {
			vals[k] = v
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func TestSchema_ValidatorsRejectInvalidProviderBlocks(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	execType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"api_version": tftypes.String, "command": tftypes.String,
		"args": tftypes.List{ElementType: tftypes.String}, "env": tftypes.Map{ElementType: tftypes.String},
	}}
	exec := tftypes.NewValue(execType, map[string]tftypes.Value{
		"api_version": str("client.authentication.k8s.io/v1"), "command": str("c"),
		"args": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, nil),
		"env":  tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil),
	})
	execs := func(n int) tftypes.Value {
		return tftypes.NewValue(tftypes.List{ElementType: execType}, slices.Repeat([]tftypes.Value{exec}, n))
	}
	tests := []struct {
		name    string
		attrs   map[string]tftypes.Value
		wantErr string // a fragment of the error's detail, "" for a valid block
	}{
		{"empty block", nil, ""},
		{"everything valid", map[string]tftypes.Value{
			"config_path": str("~/.kube/config"), "qps": tftypes.NewValue(tftypes.Number, 0.5),
			"burst": tftypes.NewValue(tftypes.Number, 1), "plan_checks": str("required"),
			"request_timeout": str("1m30s"), "exec": execs(1),
		}, ""},
		{"qps must be greater than 0", map[string]tftypes.Value{"qps": tftypes.NewValue(tftypes.Number, 0)}, "greater than 0"},
		{"burst must be at least 1", map[string]tftypes.Value{"burst": tftypes.NewValue(tftypes.Number, 0)}, "at least 1"},
		{"at most one exec block", map[string]tftypes.Value{"exec": execs(2)}, "at most 1"},
		{"config_path conflicts with config_paths", map[string]tftypes.Value{
			"config_path":  str("a"),
			"config_paths": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{str("b")}),
		}, "cannot be specified"},
		{"plan_checks is one of two modes", map[string]tftypes.Value{"plan_checks": str("strict")}, "best_effort"},
		{"request_timeout is a duration", map[string]tftypes.Value{"request_timeout": str("60")}, "duration"},
		{"request_timeout is positive", map[string]tftypes.Value{"request_timeout": str("0s")}, "greater than 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := providerserver.NewProtocol6(&DeckhouseProvider{version: "test"})()
			if _, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{}); err != nil {
				t.Fatal(err)
			}
			resp, err := srv.ValidateProviderConfig(context.Background(), &tfprotov6.ValidateProviderConfigRequest{
				Config: providerConfig(t, tt.attrs),
			})
			if err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, d := range resp.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					errs = append(errs, d.Summary+": "+d.Detail)
				}
			}
			switch {
			case tt.wantErr == "" && len(errs) > 0:
				t.Fatalf("errors for a valid block: %q", errs)
			case tt.wantErr != "" && !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tt.wantErr) }):
				t.Fatalf("errors %q, want one containing %q", errs, tt.wantErr)
			}
		})
	}
}

func TestSchema_ExecEnvIsSensitive(t *testing.T) {
	var resp provider.SchemaResponse
	(&DeckhouseProvider{}).Schema(context.Background(), provider.SchemaRequest{}, &resp)
	env := resp.Schema.Blocks["exec"].(pschema.ListNestedBlock).NestedObject.Attributes["env"]
	if !env.IsSensitive() {
		t.Fatal("exec.env is not sensitive")
	}
}

func TestConfigure_ThroughTheProtocolWarnsAtTheInsecureAttribute(t *testing.T) {
	clearKubeEnv(t)
	srv := providerserver.NewProtocol6(&DeckhouseProvider{version: "1.2.3"})()
	if _, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{
		Config: providerConfig(t, map[string]tftypes.Value{"insecure": tftypes.NewValue(tftypes.Bool, true)}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityWarning ||
		!resp.Diagnostics[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("insecure")) {
		t.Fatalf("diagnostics: %+v", resp.Diagnostics)
	}
}

func TestConfigure_RequestsAreLoggedAtDebugWithoutHeaders(t *testing.T) {
	clearKubeEnv(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[]}`))
	}))
	defer api.Close()
	p := &DeckhouseProvider{version: "1.2.3"}
	srv := providerserver.NewProtocol6(p)()
	if _, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	if _, err := srv.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{
		Config: providerConfig(t, map[string]tftypes.Value{"host": str(api.URL), "token": str("secret-token")}),
	}); err != nil {
		t.Fatal(err)
	}
	cl, err := p.configured.Load().Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dyn := cl.Dynamic()
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	if _, err := dyn.Resource(gvr).Namespace("ns").List(ctx, metav1.ListOptions{LabelSelector: "a=b"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "secret-token") {
		t.Fatalf("the log holds the token: %s", out.String())
	}
	lines, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 {
		t.Fatalf("%d log lines: %v", len(lines), lines)
	}
	l := lines[0]
	if l["@level"] != "debug" || l["@message"] != "Kubernetes API request" || l["method"] != "GET" ||
		l["url"] != api.URL+"/api/v1/namespaces/ns/configmaps?labelSelector=a%3Db" || l["status"] != float64(200) || l["duration"] == nil {
		t.Fatalf("log line: %v", l)
	}
}

func clearKubeEnv(t *testing.T) {
	for _, k := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBE_CTX", "KUBE_CTX_AUTH_INFO", "KUBE_CTX_CLUSTER",
		"KUBE_HOST", "KUBE_USER", "KUBE_PASSWORD", "KUBE_TOKEN", "KUBE_CLIENT_CERT_DATA", "KUBE_CLIENT_KEY_DATA",
		"KUBE_CLUSTER_CA_CERT_DATA", "KUBE_INSECURE", "KUBE_TLS_SERVER_NAME", "KUBE_PROXY_URL",
		envPlanChecks, envRequestTimeout} {
		t.Setenv(k, "")
	}
}
