// Package provider implements the Terraform/OpenTofu provider for Deckhouse
// Platform (DP) applications on terraform-plugin-framework.
package provider

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Defaults of the provider configuration.
const (
	defaultFieldManager = "terraform-provider-deckhouse"
	defaultQPS          = 100
	defaultBurst        = 300
)

var (
	_ provider.Provider              = &DeckhouseProvider{}
	_ provider.ProviderWithFunctions = &DeckhouseProvider{}
)

// DeckhouseProvider is the provider implementation.
type DeckhouseProvider struct {
	version string
	// configured is the data Configure handed to resources, for the
	// protocol server's shortcuts.
	configured atomic.Pointer[ProviderData]
}

// New returns a constructor of the provider, as providerserver expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &DeckhouseProvider{version: version}
	}
}

// providerModel is the provider configuration block.
type providerModel struct {
	ConfigPath            types.String  `tfsdk:"config_path"`
	ConfigPaths           types.List    `tfsdk:"config_paths"`
	ConfigContext         types.String  `tfsdk:"config_context"`
	ConfigContextAuthInfo types.String  `tfsdk:"config_context_auth_info"`
	ConfigContextCluster  types.String  `tfsdk:"config_context_cluster"`
	Host                  types.String  `tfsdk:"host"`
	Username              types.String  `tfsdk:"username"`
	Password              types.String  `tfsdk:"password"`
	Token                 types.String  `tfsdk:"token"`
	ClientCertificate     types.String  `tfsdk:"client_certificate"`
	ClientKey             types.String  `tfsdk:"client_key"`
	ClusterCACertificate  types.String  `tfsdk:"cluster_ca_certificate"`
	Insecure              types.Bool    `tfsdk:"insecure"`
	TLSServerName         types.String  `tfsdk:"tls_server_name"`
	ProxyURL              types.String  `tfsdk:"proxy_url"`
	Exec                  types.List    `tfsdk:"exec"`
	FieldManager          types.String  `tfsdk:"field_manager"`
	ForceConflicts        types.Bool    `tfsdk:"force_conflicts"`
	QPS                   types.Float64 `tfsdk:"qps"`
	Burst                 types.Int64   `tfsdk:"burst"`
}

type execModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

// Metadata sets the provider type name.
func (p *DeckhouseProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "deckhouse"
	resp.Version = p.version
}

// Schema describes the provider configuration.
func (p *DeckhouseProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	str := func(desc string, sensitive bool) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: desc, MarkdownDescription: desc, Sensitive: sensitive}
	}
	resp.Schema = schema.Schema{
		Description: "Manages Deckhouse Platform applications and evaluates package settings as DP does. " +
			"The cluster connection is configured like the hashicorp/kubernetes provider; it is only used by " +
			"deckhouse_application and the cluster data sources, so the offline data sources and functions work " +
			"with an empty provider block.",
		Attributes: map[string]schema.Attribute{
			"config_path": str("Path to a kubeconfig file. Can be set with the `KUBE_CONFIG_PATH` environment variable.", false),
			"config_paths": schema.ListAttribute{
				ElementType: types.StringType, Optional: true,
				Description: "A list of kubeconfig files, merged in order. Can be set with `KUBE_CONFIG_PATHS` (separated like PATH).",
			},
			"config_context":           str("Context to use from the kubeconfig. Can be set with `KUBE_CTX`.", false),
			"config_context_auth_info": str("Authentication info (user) to use from the kubeconfig. Can be set with `KUBE_CTX_AUTH_INFO`.", false),
			"config_context_cluster":   str("Cluster to use from the kubeconfig. Can be set with `KUBE_CTX_CLUSTER`.", false),
			"host":                     str("The Kubernetes API server address (https://host:port). Can be set with `KUBE_HOST`.", false),
			"username":                 str("Username for basic authentication. Can be set with `KUBE_USER`.", false),
			"password":                 str("Password for basic authentication. Can be set with `KUBE_PASSWORD`.", true),
			"token":                    str("Bearer token. Can be set with `KUBE_TOKEN`.", true),
			"client_certificate":       str("PEM client certificate for TLS authentication. Can be set with `KUBE_CLIENT_CERT_DATA`.", false),
			"client_key":               str("PEM client key for TLS authentication. Can be set with `KUBE_CLIENT_KEY_DATA`.", true),
			"cluster_ca_certificate":   str("PEM root certificate of the API server. Can be set with `KUBE_CLUSTER_CA_CERT_DATA`.", false),
			"insecure": schema.BoolAttribute{
				Optional:    true,
				Description: "Skip TLS verification of the API server (not recommended). Can be set with `KUBE_INSECURE`. Default false.",
			},
			"tls_server_name": str("Server name for TLS verification of the API server. Can be set with `KUBE_TLS_SERVER_NAME`.", false),
			"proxy_url":       str("URL of a proxy for requests to the API server. Can be set with `KUBE_PROXY_URL`.", false),
			"field_manager":   str("Field manager name of server-side apply. Default `"+defaultFieldManager+"`.", false),
			"force_conflicts": schema.BoolAttribute{
				Optional:    true,
				Description: "Force server-side apply over fields owned by other field managers. Default false.",
			},
			"qps": schema.Float64Attribute{
				Optional:    true,
				Description: "Maximum requests per second to the API server. Default 100.",
			},
			"burst": schema.Int64Attribute{
				Optional:    true,
				Description: "Maximum burst of requests to the API server. Default 300.",
			},
		},
		Blocks: map[string]schema.Block{
			"exec": schema.ListNestedBlock{
				Description: "A client-go credential plugin to obtain credentials, as in a kubeconfig `exec` section.",
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"api_version": schema.StringAttribute{Required: true, Description: "API version of the ExecCredential, e.g. `client.authentication.k8s.io/v1`."},
						"command":     schema.StringAttribute{Required: true, Description: "Command to run."},
						"args":        schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "Arguments of the command."},
						"env":         schema.MapAttribute{ElementType: types.StringType, Optional: true, Description: "Environment variables of the command."},
					},
				},
			},
		},
	}
}

// Configure records the configuration. It never contacts the cluster: the
// client is built lazily by ProviderData.Dynamic when a resource or a cluster
// data source needs it.
func (p *DeckhouseProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg, unknown := connectionFromModel(ctx, &m)
	cfg.UserAgent = "terraform-provider-deckhouse/" + p.version
	data := &ProviderData{
		FieldManager:   defaultFieldManager,
		ForceConflicts: false,
		conn:           cfg,
		unknown:        unknown,
	}
	if v := m.FieldManager; !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		data.FieldManager = v.ValueString()
	}
	if v := m.ForceConflicts; !v.IsNull() && !v.IsUnknown() {
		data.ForceConflicts = v.ValueBool()
	}
	if data.conn.QPS <= 0 {
		resp.Diagnostics.AddAttributeError(path.Root("qps"), "Invalid qps", "qps must be greater than 0.")
	}
	if data.conn.Burst <= 0 {
		resp.Diagnostics.AddAttributeError(path.Root("burst"), "Invalid burst", "burst must be greater than 0.")
	}
	resp.DataSourceData = data
	resp.ResourceData = data
	p.configured.Store(data)
}

// connectionFromModel merges the configuration with the KUBE_* environment
// variables (configuration wins) and reports whether any value was unknown.
func connectionFromModel(ctx context.Context, m *providerModel) (connConfig, bool) {
	unknown := false
	str := func(v types.String, env ...string) string {
		if v.IsUnknown() {
			unknown = true
			return ""
		}
		if !v.IsNull() {
			return v.ValueString()
		}
		for _, e := range env {
			if s := os.Getenv(e); s != "" {
				return s
			}
		}
		return ""
	}
	boolean := func(v types.Bool, env string) bool {
		if v.IsUnknown() {
			unknown = true
			return false
		}
		if !v.IsNull() {
			return v.ValueBool()
		}
		b, _ := strconv.ParseBool(os.Getenv(env))
		return b
	}
	c := connConfig{
		ConfigPath:            str(m.ConfigPath, "KUBE_CONFIG_PATH"),
		ConfigContext:         str(m.ConfigContext, "KUBE_CTX"),
		ConfigContextAuthInfo: str(m.ConfigContextAuthInfo, "KUBE_CTX_AUTH_INFO"),
		ConfigContextCluster:  str(m.ConfigContextCluster, "KUBE_CTX_CLUSTER"),
		Host:                  str(m.Host, "KUBE_HOST"),
		Username:              str(m.Username, "KUBE_USER"),
		Password:              str(m.Password, "KUBE_PASSWORD"),
		Token:                 str(m.Token, "KUBE_TOKEN"),
		ClientCertificate:     str(m.ClientCertificate, "KUBE_CLIENT_CERT_DATA"),
		ClientKey:             str(m.ClientKey, "KUBE_CLIENT_KEY_DATA"),
		ClusterCACertificate:  str(m.ClusterCACertificate, "KUBE_CLUSTER_CA_CERT_DATA"),
		Insecure:              boolean(m.Insecure, "KUBE_INSECURE"),
		TLSServerName:         str(m.TLSServerName, "KUBE_TLS_SERVER_NAME"),
		ProxyURL:              str(m.ProxyURL, "KUBE_PROXY_URL"),
		QPS:                   defaultQPS,
		Burst:                 defaultBurst,
	}
	switch {
	case m.ConfigPaths.IsUnknown():
		unknown = true
	case !m.ConfigPaths.IsNull():
		var paths []types.String
		m.ConfigPaths.ElementsAs(ctx, &paths, false)
		for _, p := range paths {
			if p.IsUnknown() {
				unknown = true
				continue
			}
			if !p.IsNull() && p.ValueString() != "" {
				c.ConfigPaths = append(c.ConfigPaths, p.ValueString())
			}
		}
	default:
		if s := os.Getenv("KUBE_CONFIG_PATHS"); s != "" {
			for _, p := range strings.Split(s, string(os.PathListSeparator)) {
				if p != "" {
					c.ConfigPaths = append(c.ConfigPaths, p)
				}
			}
		}
	}
	if m.QPS.IsUnknown() {
		unknown = true
	} else if !m.QPS.IsNull() {
		c.QPS = float32(m.QPS.ValueFloat64())
	}
	if m.Burst.IsUnknown() {
		unknown = true
	} else if !m.Burst.IsNull() {
		c.Burst = int(m.Burst.ValueInt64())
	}
	var execs []execModel
	if m.Exec.IsUnknown() {
		unknown = true
	} else if !m.Exec.IsNull() {
		if diags := m.Exec.ElementsAs(ctx, &execs, true); diags.HasError() {
			unknown = true
		}
	}
	for _, e := range execs {
		x := &execConfig{}
		x.APIVersion = str(e.APIVersion)
		x.Command = str(e.Command)
		if e.Args.IsUnknown() || e.Env.IsUnknown() {
			unknown = true
		}
		var args []types.String
		e.Args.ElementsAs(ctx, &args, false)
		for _, a := range args {
			x.Args = append(x.Args, str(a))
		}
		env := map[string]types.String{}
		e.Env.ElementsAs(ctx, &env, false)
		for k, v := range env {
			if x.Env == nil {
				x.Env = map[string]string{}
			}
			x.Env[k] = str(v)
		}
		c.Exec = x
	}
	return c, unknown
}

// Resources lists the managed resources.
func (p *DeckhouseProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewApplicationResource,
	}
}

// DataSources lists the data sources.
func (p *DeckhouseProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewPackageVersionDataSource,
		NewAvailableClusterResourceDataSource,
		NewPackageSettingsDataSource,
		NewPackageDataSource,
		NewApplicationDataSource,
		NewApplicationsDataSource,
		NewPackageVersionsDataSource,
	}
}

// Functions lists the provider functions.
func (p *DeckhouseProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		NewEffectiveSettingsFunction,
		NewValidateSettingsFunction,
	}
}
