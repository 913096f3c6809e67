package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// stringBinding ties a string argument of the provider block to the
// environment variable that sets it when the block does not, and to the
// field of the connection it fills.
type stringBinding struct {
	attr  func(*providerModel) types.String
	env   string
	field func(*dpclient.Config) *string
}

// connectionStrings are the string arguments of the connection, each with
// hashicorp/kubernetes' variable. The arguments resolved with rules of their
// own (kubeconfig files, insecure, limits, exec) have a resolver each.
var connectionStrings = []stringBinding{
	{func(m *providerModel) types.String { return m.ConfigContext }, "KUBE_CTX", func(c *dpclient.Config) *string { return &c.ConfigContext }},
	{func(m *providerModel) types.String { return m.ConfigContextAuthInfo }, "KUBE_CTX_AUTH_INFO", func(c *dpclient.Config) *string { return &c.ConfigContextAuthInfo }},
	{func(m *providerModel) types.String { return m.ConfigContextCluster }, "KUBE_CTX_CLUSTER", func(c *dpclient.Config) *string { return &c.ConfigContextCluster }},
	{func(m *providerModel) types.String { return m.Host }, "KUBE_HOST", func(c *dpclient.Config) *string { return &c.Host }},
	{func(m *providerModel) types.String { return m.Username }, "KUBE_USER", func(c *dpclient.Config) *string { return &c.Username }},
	{func(m *providerModel) types.String { return m.Password }, "KUBE_PASSWORD", func(c *dpclient.Config) *string { return &c.Password }},
	{func(m *providerModel) types.String { return m.Token }, "KUBE_TOKEN", func(c *dpclient.Config) *string { return &c.Token }},
	{func(m *providerModel) types.String { return m.ClientCertificate }, "KUBE_CLIENT_CERT_DATA", func(c *dpclient.Config) *string { return &c.ClientCertificate }},
	{func(m *providerModel) types.String { return m.ClientKey }, "KUBE_CLIENT_KEY_DATA", func(c *dpclient.Config) *string { return &c.ClientKey }},
	{func(m *providerModel) types.String { return m.ClusterCACertificate }, "KUBE_CLUSTER_CA_CERT_DATA", func(c *dpclient.Config) *string { return &c.ClusterCACertificate }},
	{func(m *providerModel) types.String { return m.TLSServerName }, "KUBE_TLS_SERVER_NAME", func(c *dpclient.Config) *string { return &c.TLSServerName }},
	{func(m *providerModel) types.String { return m.ProxyURL }, "KUBE_PROXY_URL", func(c *dpclient.Config) *string { return &c.ProxyURL }},
}

// configResolver merges the provider block with the environment: the block
// wins, an empty variable is unset. A value unknown at plan sets unknown.
type configResolver struct {
	ctx     context.Context
	m       *providerModel
	getenv  func(string) string
	diags   diag.Diagnostics
	unknown bool
}

// providerDataFromModel merges the configuration with the environment
// (configuration wins; an empty variable is unset) into the data handed to
// resources. A value unknown at plan marks the connection unknown, or leaves
// a non-connection argument at its environment value or default. It warns
// about settings that expose credentials, and reports environment variables
// that do not parse as errors naming the variable.
func providerDataFromModel(ctx context.Context, m *providerModel, getenv func(string) string) (*providerdata.Data, diag.Diagnostics) {
	r := &configResolver{ctx: ctx, m: m, getenv: getenv}
	c := dpclient.Config{QPS: defaultQPS, Burst: defaultBurst, Getenv: getenv}
	for _, b := range connectionStrings {
		*b.field(&c) = r.str(b.attr(m), b.env)
	}
	r.kubeconfigPaths(&c)
	r.insecure(&c)
	r.warnPlainHTTP(&c)
	r.limits(&c)
	r.exec(&c)

	data := &providerdata.Data{
		FieldManager:   providerdata.DefaultFieldManager,
		PlanChecks:     providerdata.PlanChecksBestEffort,
		RequestTimeout: defaultRequestTimeout,
		Conn:           c,
	}
	if v := m.FieldManager; !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		data.FieldManager = v.ValueString()
	}
	if v := m.ForceConflicts; !v.IsNull() && !v.IsUnknown() {
		data.ForceConflicts = v.ValueBool()
	}
	r.planChecks(data)
	r.importSettings(data)
	r.requestTimeout(data)
	data.Unknown = r.unknown
	return data, r.diags
}

// str is the block's value, else the first set variable of env, else "".
func (r *configResolver) str(v types.String, env ...string) string {
	if v.IsUnknown() {
		r.unknown = true
		return ""
	}
	if !v.IsNull() {
		return v.ValueString()
	}
	for _, e := range env {
		if s := r.getenv(e); s != "" {
			return s
		}
	}
	return ""
}

// kubeconfigPaths: config_path or config_paths (they conflict), else
// KUBE_CONFIG_PATH, else KUBE_CONFIG_PATHS. An empty value is unset, as in
// hashicorp/kubernetes (config_path = var.x with a default of "").
func (r *configResolver) kubeconfigPaths(c *dpclient.Config) {
	m := r.m
	switch {
	case m.ConfigPath.IsUnknown() || m.ConfigPaths.IsUnknown():
		r.unknown = true
	case m.ConfigPath.ValueString() != "":
		c.ConfigPaths = []string{m.ConfigPath.ValueString()}
	case len(m.ConfigPaths.Elements()) > 0:
		var paths []types.String
		r.diags.Append(m.ConfigPaths.ElementsAs(r.ctx, &paths, false)...)
		for _, p := range paths {
			if p.IsUnknown() {
				r.unknown = true
				continue
			}
			if !p.IsNull() && p.ValueString() != "" {
				c.ConfigPaths = append(c.ConfigPaths, p.ValueString())
			}
		}
	case r.getenv("KUBE_CONFIG_PATH") != "":
		c.ConfigPaths = []string{r.getenv("KUBE_CONFIG_PATH")}
		if r.getenv("KUBE_CONFIG_PATHS") != "" {
			r.diags.AddWarning("KUBE_CONFIG_PATHS is ignored",
				"Both KUBE_CONFIG_PATH and KUBE_CONFIG_PATHS are set; the deckhouse provider uses KUBE_CONFIG_PATH, "+
					"as the hashicorp/kubernetes provider does.")
		}
	default:
		c.ConfigPaths = slices.DeleteFunc(filepath.SplitList(r.getenv("KUBE_CONFIG_PATHS")), func(p string) bool { return p == "" })
	}
}

// insecure: the block, else KUBE_INSECURE (an error when it is not a
// boolean); a warning when TLS verification ends up off.
func (r *configResolver) insecure(c *dpclient.Config) {
	v := r.m.Insecure
	switch {
	case v.IsUnknown():
		r.unknown = true
	case !v.IsNull():
		c.Insecure = v.ValueBool()
		if c.Insecure {
			r.diags.AddAttributeWarning(path.Root("insecure"), "TLS verification of the API server is off", insecureWarning)
		}
	case r.getenv("KUBE_INSECURE") != "":
		s := r.getenv("KUBE_INSECURE")
		b, err := strconv.ParseBool(s)
		if err != nil {
			r.diags.AddError("Invalid KUBE_INSECURE",
				fmt.Sprintf("The environment variable KUBE_INSECURE is %q, which is not a boolean (true, false, 1 or 0).", s))
		}
		c.Insecure = b
		if c.Insecure {
			r.diags.AddWarning("TLS verification of the API server is off (KUBE_INSECURE)", insecureWarning)
		}
	}
}

// warnPlainHTTP warns, at host when the block set it, about an http:// API
// server address.
func (r *configResolver) warnPlainHTTP(c *dpclient.Config) {
	if !strings.HasPrefix(strings.ToLower(c.Host), "http://") {
		return
	}
	const detail = "The API server address is http://: the credentials (tokens, passwords, client keys) and the " +
		"settings sent to it, sensitive settings included, travel in clear. Use an https:// address."
	if !r.m.Host.IsNull() {
		r.diags.AddAttributeWarning(path.Root("host"), "Unencrypted connection to the API server", detail)
	} else {
		r.diags.AddWarning("Unencrypted connection to the API server (KUBE_HOST)", detail)
	}
}

// limits: qps and burst from the block, else the defaults.
func (r *configResolver) limits(c *dpclient.Config) {
	if r.m.QPS.IsUnknown() {
		r.unknown = true
	} else if !r.m.QPS.IsNull() {
		c.QPS = float32(r.m.QPS.ValueFloat64())
	}
	if r.m.Burst.IsUnknown() {
		r.unknown = true
	} else if !r.m.Burst.IsNull() {
		c.Burst = int(r.m.Burst.ValueInt64())
	}
}

// exec: the credential plugin of the exec block (the schema allows at most
// one).
func (r *configResolver) exec(c *dpclient.Config) {
	var execs []execModel
	if r.m.Exec.IsUnknown() {
		r.unknown = true
	} else if !r.m.Exec.IsNull() {
		if d := r.m.Exec.ElementsAs(r.ctx, &execs, true); d.HasError() {
			r.unknown = true
		}
	}
	if len(execs) == 0 {
		return
	}
	e := execs[0]
	x := &dpclient.ExecConfig{APIVersion: r.str(e.APIVersion), Command: r.str(e.Command)}
	if e.Args.IsUnknown() || e.Env.IsUnknown() {
		r.unknown = true
	}
	var args []types.String
	e.Args.ElementsAs(r.ctx, &args, false)
	for _, a := range args {
		x.Args = append(x.Args, r.str(a))
	}
	env := map[string]types.String{}
	e.Env.ElementsAs(r.ctx, &env, false)
	for k, v := range env {
		if x.Env == nil {
			x.Env = map[string]string{}
		}
		x.Env[k] = r.str(v)
	}
	c.Exec = x
}

// planChecks: the block (checked by the schema), else DECKHOUSE_PLAN_CHECKS
// (an error when it is neither value), else the default.
func (r *configResolver) planChecks(data *providerdata.Data) {
	switch v := r.m.PlanChecks; {
	case !v.IsNull() && !v.IsUnknown():
		data.PlanChecks = v.ValueString()
	case r.getenv(envPlanChecks) != "":
		switch s := r.getenv(envPlanChecks); s {
		case providerdata.PlanChecksBestEffort, providerdata.PlanChecksRequired:
			data.PlanChecks = s
		default:
			r.diags.AddError("Invalid "+envPlanChecks, fmt.Sprintf("The environment variable %s is %q; it must be %q or %q.",
				envPlanChecks, s, providerdata.PlanChecksBestEffort, providerdata.PlanChecksRequired))
		}
	}
}

// importSettings: the block, else DECKHOUSE_IMPORT_SETTINGS (an error when
// it is neither value), else omit.
func (r *configResolver) importSettings(data *providerdata.Data) {
	s := r.m.ImportSettings.ValueString()
	if r.m.ImportSettings.IsNull() || r.m.ImportSettings.IsUnknown() {
		s = r.getenv(envImportSettings)
		if s != "" && s != providerdata.ImportSettingsOmit && s != providerdata.ImportSettingsRead {
			r.diags.AddError("Invalid "+envImportSettings, fmt.Sprintf("The environment variable %s is %q; it must be %q or %q.",
				envImportSettings, s, providerdata.ImportSettingsOmit, providerdata.ImportSettingsRead))
			return
		}
	}
	data.ImportSettingsRead = s == providerdata.ImportSettingsRead
}

// requestTimeout: the block (an invalid value is reported by the schema's
// validator), else DECKHOUSE_REQUEST_TIMEOUT (an error when it does not
// parse), else the default.
func (r *configResolver) requestTimeout(data *providerdata.Data) {
	switch v := r.m.RequestTimeout; {
	case !v.IsNull() && !v.IsUnknown():
		if d, err := parsePositiveDuration(v.ValueString()); err == nil {
			data.RequestTimeout = d
		}
	case r.getenv(envRequestTimeout) != "":
		s := r.getenv(envRequestTimeout)
		d, err := parsePositiveDuration(s)
		if err != nil {
			r.diags.AddError("Invalid "+envRequestTimeout, fmt.Sprintf("The environment variable %s is %q: %s.", envRequestTimeout, s, err))
		} else {
			data.RequestTimeout = d
		}
	}
}
