package datasources

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

var (
	_ datasource.DataSource              = &ApplicationDataSource{}
	_ datasource.DataSourceWithConfigure = &ApplicationDataSource{}
)

// NewApplication returns deckhouse_application.
func NewApplication() datasource.DataSource { return &ApplicationDataSource{} }

// ApplicationDataSource reads one existing Application: its spec, the
// settings DP applied last and its status.
type ApplicationDataSource struct {
	cluster
}

type applicationDataModel struct {
	ID                    types.String  `tfsdk:"id"`
	Namespace             types.String  `tfsdk:"namespace"`
	Name                  types.String  `tfsdk:"name"`
	PackageName           types.String  `tfsdk:"package_name"`
	PackageVersion        types.String  `tfsdk:"package_version"`
	PackageRepositoryName types.String  `tfsdk:"package_repository_name"`
	ReleaseChannel        types.String  `tfsdk:"release_channel"`
	Maintenance           types.String  `tfsdk:"maintenance"`
	Update                types.Object  `tfsdk:"update"`
	ResourceRequests      types.List    `tfsdk:"resource_requests"`
	Labels                types.Map     `tfsdk:"labels"`
	Annotations           types.Map     `tfsdk:"annotations"`
	Settings              types.Dynamic `tfsdk:"settings"`
	EffectiveSettings     types.Dynamic `tfsdk:"effective_settings"`
	LastAppliedSettings   types.Dynamic `tfsdk:"last_applied_settings"`
	Status                types.Object  `tfsdk:"status"`
}

func (d *ApplicationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_application"
}

func (d *ApplicationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one existing Application (`deckhouse.io/v1alpha1`) by namespace and name: its spec, its " +
			"effective settings, the settings DP applied last and its status. Use it for Applications managed elsewhere (another " +
			"configuration, `kubectl`, the DP console). An Application that does not exist is an error.\n\n" +
			"`settings`, `effective_settings` and `last_applied_settings` are sensitive: `spec.settings` may hold values written through the " +
			"write-only `sensitive_settings` of the `deckhouse_application` resource, and the object does not say which " +
			"paths those are. Read a value with `nonsensitive()` only when you know it is not a secret.\n\n" +
			"A configuration that reads secrets from an Application should use the ephemeral resource `deckhouse_application` " +
			"instead: it reads the same values and stores none of them in the plan or the state (Terraform 1.10, OpenTofu 1.11 or later).",
		Attributes: map[string]schema.Attribute{
			"id":                      str("`<namespace>/<name>`."),
			"namespace":               schema.StringAttribute{Required: true, MarkdownDescription: "Namespace (project) of the Application."},
			"name":                    schema.StringAttribute{Required: true, MarkdownDescription: "Name of the Application."},
			"package_name":            str("`spec.packageName`: the ApplicationPackage."),
			"package_version":         str("`spec.packageVersion`: the requested version, for example `v1.0.0`."),
			"package_repository_name": str("`spec.packageRepositoryName`: the PackageRepository, null when not set."),
			"release_channel":         str("`spec.releaseChannel`, null when not set."),
			"maintenance":             str("`spec.maintenance` (`NoResourceReconciliation`), null when not set."),
			"update":                  appstatus.UpdateDataSourceAttribute(),
			"resource_requests":       appstatus.ResourceRequestsDataSourceAttribute(),
			"labels": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Every label of the object, including those DP adds (`packages.deckhouse.io/package`, `packages.deckhouse.io/instance`).",
			},
			"annotations": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Every annotation of the object.",
			},
			"settings": schema.DynamicAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: "`spec.settings` as written, null when not set. Sensitive: it may hold values written " +
					"through the write-only `sensitive_settings` of the `deckhouse_application` resource.",
			},
			"effective_settings": schema.DynamicAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: appstatus.EffectiveSettingsDescription + " Here DP's record when DP has applied the " +
					"current generation (`ConfigurationApplied` True for `metadata.generation`), null until then. " +
					"Sensitive for the same reason as `settings`, which it contains.",
			},
			"last_applied_settings": schema.DynamicAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: appstatus.LastAppliedSettingsDescription + " Sensitive for the same reason as `settings`.",
			},
			"status": appstatus.DataSourceAttribute(),
		},
	}
}

func (d *ApplicationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.deferred(ctx, req, resp) {
		return
	}
	var m applicationDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cl := providerdata.ClusterClient(ctx, d.data, &resp.Diagnostics)
	if cl == nil {
		return
	}
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	obj, err := cl.GetApplication(ctx, ns, name)
	if apierrors.IsNotFound(err) {
		resp.Diagnostics.AddError("Application not found",
			fmt.Sprintf("There is no Application %s/%s (namespace %q, name %q) in the cluster.", ns, name, ns, name))
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the Application", err.Error())
		return
	}
	m.ID = types.StringValue(ns + "/" + name)
	m.PackageName = nestedStringValue(obj, "spec", "packageName")
	m.PackageVersion = nestedStringValue(obj, "spec", "packageVersion")
	m.PackageRepositoryName = nestedStringValue(obj, "spec", "packageRepositoryName")
	m.ReleaseChannel = nestedStringValue(obj, "spec", "releaseChannel")
	m.Maintenance = nestedStringValue(obj, "spec", "maintenance")
	m.Update, _ = appstatus.UpdateField.Read(obj).(types.Object)
	m.ResourceRequests, _ = appstatus.ResourceRequestsField.Read(obj).(types.List)
	m.Labels = stringMapValue(obj.GetLabels())
	m.Annotations = stringMapValue(obj.GetAnnotations())
	m.Settings = nestedDynamic(obj, "spec", "settings")
	m.EffectiveSettings = dynamicOf(appstatus.EffectiveSettings(obj))
	m.LastAppliedSettings = dynamicOf(appstatus.LastApplied(obj))
	m.Status = readStatus(obj).Value()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// readStatus reads the status of an Application for the data sources. Any
// value of spec.settings may be a secret written through sensitive_settings
// (the object does not say which): every one is redacted from DP's texts.
func readStatus(obj *unstructured.Unstructured) appstatus.Status {
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	return appstatus.Read(obj, diagnostics.NewRedactor(settings).Redact)
}

// dynamicOf is a document as a dynamic value, null when there is none.
func dynamicOf(v any, ok bool) types.Dynamic {
	if !ok {
		return types.DynamicNull()
	}
	return convert.ToDynamic(v)
}

// nestedStringValue is the string at fields, null when absent or not a string.
func nestedStringValue(obj *unstructured.Unstructured, fields ...string) types.String {
	v, ok, err := unstructured.NestedString(obj.Object, fields...)
	if !ok || err != nil {
		return types.StringNull()
	}
	return types.StringValue(v)
}

// nestedDynamic is the JSON value at fields as a dynamic value, null when absent.
func nestedDynamic(obj *unstructured.Unstructured, fields ...string) types.Dynamic {
	v, ok, err := unstructured.NestedFieldNoCopy(obj.Object, fields...)
	if !ok || err != nil {
		return types.DynamicNull()
	}
	return convert.ToDynamic(v)
}

// stringMapValue is a map of strings; a nil map gives an empty map.
func stringMapValue(m map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}
