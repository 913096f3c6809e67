package datasources

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
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
	Labels                types.Map     `tfsdk:"labels"`
	Annotations           types.Map     `tfsdk:"annotations"`
	Settings              types.Dynamic `tfsdk:"settings"`
	EffectiveSettings     types.Dynamic `tfsdk:"effective_settings"`
	Status                types.Object  `tfsdk:"status"`
}

// appCondition is one entry of an Application's status.conditions.
type appCondition struct {
	Type               string
	Status             string
	Reason             string
	Message            string
	ObservedGeneration *int64
}

// appURL is one entry of an Application's status.urls.
type appURL struct {
	URL         string
	Description string
}

// appStatus is what an Application's status says, read from the object.
type appStatus struct {
	State, Message, Tip, InstalledVersion *string
	URLs                                  []appURL
	Conditions                            []appCondition
}

var appDataConditionAttrTypes = map[string]attr.Type{
	"type":                types.StringType,
	"status":              types.StringType,
	"reason":              types.StringType,
	"message":             types.StringType,
	"observed_generation": types.Int64Type,
}

var appDataURLAttrTypes = map[string]attr.Type{
	"url":         types.StringType,
	"description": types.StringType,
}

var appDataStatusAttrTypes = map[string]attr.Type{
	"state":             types.StringType,
	"message":           types.StringType,
	"tip":               types.StringType,
	"installed_version": types.StringType,
	"urls":              types.ListType{ElemType: types.ObjectType{AttrTypes: appDataURLAttrTypes}},
	"conditions":        types.ListType{ElemType: types.ObjectType{AttrTypes: appDataConditionAttrTypes}},
}

func (d *ApplicationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_application"
}

func (d *ApplicationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one existing Application (`deckhouse.io/v1alpha1`) by namespace and name: its spec, the " +
			"effective settings DP applied last and its status. Use it for Applications managed elsewhere (another " +
			"configuration, `kubectl`, the DP console). An Application that does not exist is an error.\n\n" +
			"`settings` and `effective_settings` are sensitive: `spec.settings` may hold values written through the " +
			"write-only `sensitive_settings` of the `deckhouse_application` resource, and the object does not say which " +
			"paths those are. Read a value with `nonsensitive()` only when you know it is not a secret.",
		Attributes: map[string]schema.Attribute{
			"id":                      str("`<namespace>/<name>`."),
			"namespace":               schema.StringAttribute{Required: true, MarkdownDescription: "Namespace (project) of the Application."},
			"name":                    schema.StringAttribute{Required: true, MarkdownDescription: "Name of the Application."},
			"package_name":            str("`spec.packageName`: the ApplicationPackage."),
			"package_version":         str("`spec.packageVersion`: the requested version, for example `v1.0.0`."),
			"package_repository_name": str("`spec.packageRepositoryName`: the PackageRepository, null when not set."),
			"release_channel":         str("`spec.releaseChannel`, null when not set."),
			"maintenance":             str("`spec.maintenance` (`NoResourceReconciliation`), null when not set."),
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
				MarkdownDescription: "`status.lastAppliedConfiguration`: the effective settings of DP's last successful apply " +
					"(settings + settings-schema defaults + project grant defaults), null before the first one. Sensitive " +
					"for the same reason as `settings`, which it contains.",
			},
			"status": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Status of the Application as DP reports it. Fields DP has not set are null.",
				Attributes: map[string]schema.Attribute{
					"state":             str("`status.summary.state`: Pending, Failed, Updating, Ready, Degraded, Suspended or Deleting."),
					"message":           str("`status.summary.message`."),
					"tip":               str("`status.summary.tip`: what to do about the state, when DP has a hint."),
					"installed_version": str("`status.currentVersion.version`: the installed version."),
					"urls": schema.ListNestedAttribute{
						Computed:            true,
						MarkdownDescription: "`status.urls`: the addresses the application publishes, in DP's order (empty when none).",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"url":         str("Address."),
							"description": str("What the address is for."),
						}},
					},
					"conditions": schema.ListNestedAttribute{
						Computed: true,
						MarkdownDescription: "Every condition of `status.conditions`, sorted by type (`ConfigurationApplied`, " +
							"`Installed`, `Managed`, `Ready`, `Scaled`, `UpdateInstalled`, …). Pick one with " +
							"`one([for c in data.deckhouse_application.x.status.conditions : c if c.type == \"Ready\"])`.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"type":    str("Condition type."),
							"status":  str("`True`, `False` or `Unknown`."),
							"reason":  str("Machine-readable reason; a True condition has its type as reason."),
							"message": str("Human-readable message."),
							"observed_generation": schema.Int64Attribute{
								Computed: true, MarkdownDescription: "The `metadata.generation` the condition was written for, null when not set.",
							},
						}},
					},
				},
			},
		},
	}
}

func (d *ApplicationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
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
	m.Labels = stringMapValue(obj.GetLabels())
	m.Annotations = stringMapValue(obj.GetAnnotations())
	m.Settings = nestedDynamic(obj, "spec", "settings")
	m.EffectiveSettings = nestedDynamic(obj, "status", "lastAppliedConfiguration")
	m.Status = readAppStatus(obj).value()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// readAppStatus extracts status.summary, status.currentVersion, status.urls
// and status.conditions (sorted by type) from an Application. Fields of the
// wrong type count as absent. DP's texts (summary message and tip,
// condition messages) may quote a setting, and any value of spec.settings
// may be a secret written through sensitive_settings (the object does not
// say which): every value of spec.settings is redacted from them.
func readAppStatus(obj *unstructured.Unstructured) appStatus {
	var s appStatus
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	secrets := diagnostics.NewRedactor(settings)
	opt := func(fields ...string) *string {
		v, ok, err := unstructured.NestedString(obj.Object, fields...)
		if !ok || err != nil {
			return nil
		}
		return &v
	}
	text := func(fields ...string) *string {
		if v := opt(fields...); v != nil {
			r := secrets.Redact(*v)
			return &r
		}
		return nil
	}
	s.State = opt("status", "summary", "state")
	s.Message = text("status", "summary", "message")
	s.Tip = text("status", "summary", "tip")
	s.InstalledVersion = opt("status", "currentVersion", "version")

	urls, _, _ := unstructured.NestedSlice(obj.Object, "status", "urls")
	for _, u := range urls {
		m, ok := u.(map[string]any)
		if !ok {
			continue
		}
		url, _ := m["url"].(string)
		desc, _ := m["description"].(string)
		s.URLs = append(s.URLs, appURL{URL: url, Description: desc})
	}

	for _, c := range dpclient.Conditions(obj) {
		cond := appCondition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: secrets.Redact(c.Message)}
		if c.ObservedGeneration != 0 {
			cond.ObservedGeneration = &c.ObservedGeneration
		}
		s.Conditions = append(s.Conditions, cond)
	}
	sort.SliceStable(s.Conditions, func(i, j int) bool { return s.Conditions[i].Type < s.Conditions[j].Type })
	return s
}

// condition returns the status of the condition typ, or nil when absent.
func (s appStatus) condition(typ string) *string {
	for _, c := range s.Conditions {
		if c.Type == typ {
			return &c.Status
		}
	}
	return nil
}

// value is the Terraform value of the status attribute.
func (s appStatus) value() types.Object {
	urlType := types.ObjectType{AttrTypes: appDataURLAttrTypes}
	urls := make([]attr.Value, 0, len(s.URLs))
	for _, u := range s.URLs {
		urls = append(urls, types.ObjectValueMust(appDataURLAttrTypes, map[string]attr.Value{
			"url": types.StringValue(u.URL), "description": types.StringValue(u.Description),
		}))
	}
	condType := types.ObjectType{AttrTypes: appDataConditionAttrTypes}
	conds := make([]attr.Value, 0, len(s.Conditions))
	for _, c := range s.Conditions {
		conds = append(conds, types.ObjectValueMust(appDataConditionAttrTypes, map[string]attr.Value{
			"type":                types.StringValue(c.Type),
			"status":              types.StringValue(c.Status),
			"reason":              types.StringValue(c.Reason),
			"message":             types.StringValue(c.Message),
			"observed_generation": types.Int64PointerValue(c.ObservedGeneration),
		}))
	}
	return types.ObjectValueMust(appDataStatusAttrTypes, map[string]attr.Value{
		"state":             types.StringPointerValue(s.State),
		"message":           types.StringPointerValue(s.Message),
		"tip":               types.StringPointerValue(s.Tip),
		"installed_version": types.StringPointerValue(s.InstalledVersion),
		"urls":              types.ListValueMust(urlType, urls),
		"conditions":        types.ListValueMust(condType, conds),
	})
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
