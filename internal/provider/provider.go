package provider

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/datasources"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/ephemerals"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/functions"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// Defaults of the provider configuration.
const (
	defaultQPS            = 100
	defaultBurst          = 300
	defaultRequestTimeout = 60 * time.Second
)

// Environment variables of the provider's own arguments (the connection
// arguments read hashicorp/kubernetes' KUBE_* variables).
const (
	envPlanChecks     = "DECKHOUSE_PLAN_CHECKS"
	envRequestTimeout = "DECKHOUSE_REQUEST_TIMEOUT"
	envImportSettings = "DECKHOUSE_IMPORT_SETTINGS"
)

var (
	_ provider.Provider                       = &DeckhouseProvider{}
	_ provider.ProviderWithFunctions          = &DeckhouseProvider{}
	_ provider.ProviderWithListResources      = &DeckhouseProvider{}
	_ provider.ProviderWithEphemeralResources = &DeckhouseProvider{}
)

// DeckhouseProvider is the provider implementation.
type DeckhouseProvider struct {
	version string
	// configured is the data Configure handed to resources, for the
	// protocol server's shortcuts.
	configured atomic.Pointer[providerdata.Data]
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
	PlanChecks            types.String  `tfsdk:"plan_checks"`
	RequestTimeout        types.String  `tfsdk:"request_timeout"`
	ImportSettings        types.String  `tfsdk:"import_settings"`
}

type execModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

func (p *DeckhouseProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "deckhouse"
	resp.Version = p.version
}

func (p *DeckhouseProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	str := func(desc string, sensitive bool) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: desc, MarkdownDescription: desc, Sensitive: sensitive}
	}
	resp.Schema = schema.Schema{
		Description: "Manages Deckhouse Platform applications and evaluates package settings as DP does. " +
			"The cluster connection is configured like the hashicorp/kubernetes provider; it is only used by " +
			"deckhouse_application and the cluster data sources, so the offline data sources and functions work " +
			"with an empty provider block. When neither a kubeconfig file nor a host is given (in the block or the " +
			"`KUBE_*` environment variables), the provider reads the kubeconfig files `KUBECONFIG` names, as kubectl " +
			"does, and without `KUBECONFIG` uses the in-cluster configuration of the pod it runs in.",
		Attributes: map[string]schema.Attribute{
			"config_path": schema.StringAttribute{
				Optional: true,
				Description: "Path to a kubeconfig file. Conflicts with `config_paths`. Can be set with the `KUBE_CONFIG_PATH` " +
					"environment variable. Without `config_path`, `config_paths` and `host` (and their environment variables), " +
					"the provider reads the files `KUBECONFIG` names (separated like PATH, the first file winning, as in " +
					"kubectl), and without `KUBECONFIG` uses the in-cluster configuration of the pod it runs in (its service account).",
				Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("config_paths"))},
			},
			"config_paths": schema.ListAttribute{
				ElementType: types.StringType, Optional: true,
				Description: "A list of kubeconfig files, merged in order (for a setting found in several files, the first " +
					"file wins). Conflicts with `config_path`. Can be set with `KUBE_CONFIG_PATHS` (separated like PATH); " +
					"`KUBE_CONFIG_PATH` wins over it.",
				Validators: []validator.List{listvalidator.ConflictsWith(path.MatchRoot("config_path"))},
			},
			"config_context":           str("Context to use from the kubeconfig. Can be set with `KUBE_CTX`.", false),
			"config_context_auth_info": str("Authentication info (user) to use from the kubeconfig. Can be set with `KUBE_CTX_AUTH_INFO`.", false),
			"config_context_cluster":   str("Cluster to use from the kubeconfig. Can be set with `KUBE_CTX_CLUSTER`.", false),
			"host": str("The Kubernetes API server address (https://host:port). Can be set with `KUBE_HOST`. "+
				"An `http://` address sends credentials in clear (the provider warns).", false),
			"username":               str("Username for basic authentication. Can be set with `KUBE_USER`.", false),
			"password":               str("Password for basic authentication. Can be set with `KUBE_PASSWORD`.", true),
			"token":                  str("Bearer token. Can be set with `KUBE_TOKEN`.", true),
			"client_certificate":     str("PEM client certificate for TLS authentication. Can be set with `KUBE_CLIENT_CERT_DATA`.", false),
			"client_key":             str("PEM client key for TLS authentication. Can be set with `KUBE_CLIENT_KEY_DATA`.", true),
			"cluster_ca_certificate": str("PEM root certificate of the API server. Can be set with `KUBE_CLUSTER_CA_CERT_DATA`.", false),
			"insecure": schema.BoolAttribute{
				Optional: true,
				Description: "Skip TLS verification of the API server (not recommended: the provider warns). Can be set " +
					"with `KUBE_INSECURE`. Default false.",
			},
			"tls_server_name": str("Server name for TLS verification of the API server. Can be set with `KUBE_TLS_SERVER_NAME`.", false),
			"proxy_url":       str("URL of a proxy for requests to the API server. Can be set with `KUBE_PROXY_URL`.", false),
			"field_manager":   str("Field manager name of server-side apply. Default `"+providerdata.DefaultFieldManager+"`.", false),
			"force_conflicts": schema.BoolAttribute{
				Optional:    true,
				Description: "Force server-side apply over fields owned by other field managers. Default false.",
			},
			"qps": schema.Float64Attribute{
				Optional:    true,
				Description: "Maximum requests per second to the API server, greater than 0. Default 100.",
				Validators:  []validator.Float64{positiveFloat64{}},
			},
			"burst": schema.Int64Attribute{
				Optional:    true,
				Description: "Maximum burst of requests to the API server, at least 1. Default 300.",
				Validators:  []validator.Int64{int64validator.AtLeast(1)},
			},
			"plan_checks": schema.StringAttribute{
				Optional: true,
				Description: "What a plan does when it cannot check the settings of an application: `\"" + providerdata.PlanChecksBestEffort +
					"\"` (default) defers the checks to the apply with a warning; `\"" + providerdata.PlanChecksRequired + "\"` makes every " +
					"such situation (cluster unreachable, no cluster configured, RBAC, package version missing or not " +
					"loaded, unknown values) an error, for pipelines that must not pass a plan whose settings were not " +
					"checked. Can be set with `" + envPlanChecks + "`.",
				Validators: []validator.String{stringvalidator.OneOf(providerdata.PlanChecksBestEffort, providerdata.PlanChecksRequired)},
			},
			"request_timeout": schema.StringAttribute{
				Optional: true,
				Description: "The deadline of each request to the API server (each read, each attempt of a write, each watch " +
					"request; the waits of an apply are bounded by the resource's timeouts), as a duration such as `\"30s\"` or `\"2m\"`. Default `\"60s\"`. A request that " +
					"gets no answer by its deadline ends every request of the run that would follow (see the provider page). " +
					"Can be set with `" + envRequestTimeout + "`.",
				Validators: []validator.String{positiveDuration{}},
			},
			"import_settings": importSettingsAttribute(),
		},
		Blocks: map[string]schema.Block{
			"exec": schema.ListNestedBlock{
				Description: "A client-go credential plugin to obtain credentials, as in a kubeconfig `exec` section. At most one.",
				Validators:  []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"api_version": schema.StringAttribute{Required: true, Description: "API version of the ExecCredential, e.g. `client.authentication.k8s.io/v1`."},
						"command":     schema.StringAttribute{Required: true, Description: "Command to run."},
						"args":        schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "Arguments of the command."},
						"env": schema.MapAttribute{
							ElementType: types.StringType, Optional: true, Sensitive: true,
							Description: "Environment variables of the command (sensitive: they often hold cloud credentials).",
						},
					},
				},
			},
		},
	}
}

// Configure records the configuration. It never contacts the cluster: the
// client is built lazily by providerdata.Data.Client when a resource or a cluster
// data source needs it.
func (p *DeckhouseProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	data, diags := providerDataFromModel(ctx, &m, os.Getenv)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	data.Incomplete = !req.Config.Raw.IsFullyKnown()
	data.Conn.UserAgent = "terraform-provider-deckhouse/" + p.version
	data.Conn.LogRequest = logRequest
	resp.DataSourceData = data
	resp.ResourceData = data
	resp.ListResourceData = data
	resp.EphemeralResourceData = data
	p.configured.Store(data)
}

// logRequest logs one API request at debug level through the provider's
// logger (TF_LOG=DEBUG): method, URL, status and duration, never bodies or
// headers.
func logRequest(ctx context.Context, r dpclient.Request) {
	fields := map[string]any{
		"method":   r.Method,
		"url":      r.URL,
		"status":   r.Status,
		"duration": r.Duration.String(),
	}
	if r.Err != nil {
		fields["error"] = r.Err.Error()
	}
	tflog.Debug(ctx, "Kubernetes API request", fields)
}

const insecureWarning = "The provider does not verify the API server's certificate: anyone on the network path can " +
	"impersonate the server and read the credentials and the settings sent to it, sensitive settings included. " +
	"Give the server's CA with cluster_ca_certificate (or in the kubeconfig) instead."

// parsePositiveDuration parses a Go duration ("60s", "2m") greater than 0.
func parsePositiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration such as \"30s\" or \"2m\"")
	}
	if d <= 0 {
		return 0, fmt.Errorf("the duration must be greater than 0")
	}
	return d, nil
}

// positiveDuration validates a string attribute holding a duration > 0.
type positiveDuration struct{}

func (positiveDuration) Description(context.Context) string {
	return "value must be a duration greater than 0, such as \"30s\" or \"2m\""
}

func (v positiveDuration) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (positiveDuration) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parsePositiveDuration(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%s is %q: %s.", req.Path, req.ConfigValue.ValueString(), err))
	}
}

// positiveFloat64 validates a number attribute greater than 0 (the
// validators module has only inclusive bounds).
type positiveFloat64 struct{}

func (positiveFloat64) Description(context.Context) string { return "value must be greater than 0" }

func (v positiveFloat64) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (positiveFloat64) ValidateFloat64(_ context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if req.ConfigValue.ValueFloat64() <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid value",
			fmt.Sprintf("%s must be greater than 0, got %v.", req.Path, req.ConfigValue.ValueFloat64()))
	}
}

// Resources lists the managed resources.
func (p *DeckhouseProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		application.NewResource,
	}
}

// DataSources lists the data sources.
func (p *DeckhouseProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		datasources.NewPackageVersion,
		datasources.NewAvailableClusterResource,
		datasources.NewPackageSettings,
		datasources.NewPackage,
		datasources.NewApplication,
		datasources.NewApplications,
		datasources.NewPackageVersions,
	}
}

// EphemeralResources lists the ephemeral resources.
func (p *DeckhouseProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		ephemerals.NewApplication,
	}
}

// ListResources lists the list resources (`terraform query`).
func (p *DeckhouseProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		application.NewListResource,
	}
}

// Functions lists the provider functions.
func (p *DeckhouseProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		functions.NewEffectiveSettings,
		functions.NewValidateSettings,
		functions.NewSetting,
	}
}

// importSettingsAttribute is the provider's import_settings argument.
func importSettingsAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Description: "What the state holds of the settings of an imported `deckhouse_application` (an `import` block, " +
			"`terraform import`, or a `moved` block from `kubernetes_manifest`) until this provider first writes it. `\"" +
			providerdata.ImportSettingsOmit + "\"` (default): nothing, since any value of `spec.settings` may be a " +
			"secret; the first plan shows the configuration's `settings` as an update, and its apply takes ownership of " +
			"them. `\"" + providerdata.ImportSettingsRead + "\"`: `spec.settings` as it is in the cluster, stored and shown " +
			"like any `settings`, so a configuration equal to the cluster's plans no change. Use it only for Applications " +
			"whose settings hold no secret (a value you will set with `sensitive_settings` would be stored and shown " +
			"until the first apply). Can be set with `" + envImportSettings + "`.",
		Validators: []validator.String{stringvalidator.OneOf(providerdata.ImportSettingsOmit, providerdata.ImportSettingsRead)},
	}
}
