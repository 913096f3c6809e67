package datasources

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

var (
	_ datasource.DataSource              = &ApplicationsDataSource{}
	_ datasource.DataSourceWithConfigure = &ApplicationsDataSource{}
)

// NewApplications returns deckhouse_applications.
func NewApplications() datasource.DataSource { return &ApplicationsDataSource{} }

// ApplicationsDataSource lists the Applications of a namespace, or of every
// namespace.
type ApplicationsDataSource struct {
	cluster
}

type applicationsDataModel struct {
	ID          types.String `tfsdk:"id"`
	Namespace   types.String `tfsdk:"namespace"`
	PackageName types.String `tfsdk:"package_name"`
	Items       types.List   `tfsdk:"items"`
}

// applicationSummary is one item of deckhouse_applications.
type applicationSummary struct {
	Namespace, Name                 string
	PackageName, PackageVersion     *string
	PackageRepositoryName, State    *string
	ConfigurationApplied, ReadyCond *string
	Update, ResourceRequests        attr.Value
}

var applicationsItemAttrTypes = map[string]attr.Type{
	"namespace":               types.StringType,
	"name":                    types.StringType,
	"package_name":            types.StringType,
	"package_version":         types.StringType,
	"package_repository_name": types.StringType,
	"state":                   types.StringType,
	"configuration_applied":   types.StringType,
	"ready":                   types.StringType,
	"update":                  appstatus.UpdateType,
	"resource_requests":       appstatus.ResourceRequestsType,
}

func (d *ApplicationsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_applications"
}

func (d *ApplicationsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the Applications (`deckhouse.io/v1alpha1`) of a namespace, or of every namespace, " +
			"optionally only those of one package, with their package, version, state, the statuses of the " +
			"`ConfigurationApplied` and `Ready` conditions, and their `update` and `resource_requests`. Settings are not listed: read one Application with the " +
			"`deckhouse_application` data source for those. The provider reads them with one paged LIST (500 objects a " +
			"page), so it needs the `list` verb on `applications.deckhouse.io` in that namespace, or cluster-wide (a " +
			"ClusterRole) without `namespace`.",
		Attributes: map[string]schema.Attribute{
			"id": str("`<namespace>`, or `<namespace>/<package_name>` when filtered by package; the namespace is `*` " +
				"when every namespace is listed."),
			"namespace": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Namespace (project) to list. Every namespace when omitted (or null), for example to " +
					"find the Applications to import; the items then come sorted by namespace, then name.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"package_name": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Only the Applications of this ApplicationPackage (`spec.packageName`). All Applications " +
					"of the namespace when omitted.",
			},
			"items": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The Applications, sorted by namespace, then name (an empty list when there are none).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"namespace":               str("Namespace of the Application."),
					"name":                    str("Name of the Application."),
					"package_name":            str("`spec.packageName`."),
					"package_version":         str("`spec.packageVersion`."),
					"package_repository_name": str("`spec.packageRepositoryName`, null when not set."),
					"state":                   str("`status.summary.state`, null until DP reports one."),
					"configuration_applied":   str("Status of the `ConfigurationApplied` condition (`True`, `False`, `Unknown`), null when absent."),
					"ready":                   str("Status of the `Ready` condition (`True`, `False`, `Unknown`), null when absent."),
					"update":                  appstatus.UpdateDataSourceAttribute(),
					"resource_requests":       appstatus.ResourceRequestsDataSourceAttribute(),
				}},
			},
		},
	}
}

func (d *ApplicationsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.deferred(ctx, req, resp) {
		return
	}
	var m applicationsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cl := providerdata.ClusterClient(ctx, d.data, &resp.Diagnostics)
	if cl == nil {
		return
	}
	ns, pkg := m.Namespace.ValueString(), m.PackageName.ValueString()
	var items []applicationSummary
	err := cl.ListApplications(ctx, ns, func(obj *unstructured.Unstructured) {
		if s := summarizeApplication(obj); pkg == "" || (s.PackageName != nil && *s.PackageName == pkg) {
			items = append(items, s)
		}
	})
	if err != nil {
		where := fmt.Sprintf("namespace %q", ns)
		if ns == "" {
			where = "every namespace"
		}
		resp.Diagnostics.AddError("Cannot list Applications", fmt.Sprintf("Listing the Applications of %s: %v", where, err))
		return
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].Namespace != items[j].Namespace {
			return items[i].Namespace < items[j].Namespace
		}
		return items[i].Name < items[j].Name
	})

	id := ns
	if ns == "" {
		id = "*"
	}
	if pkg != "" {
		id += "/" + pkg
	}
	m.ID = types.StringValue(id)
	itemType := types.ObjectType{AttrTypes: applicationsItemAttrTypes}
	elems := make([]attr.Value, 0, len(items))
	for _, s := range items {
		elems = append(elems, s.value())
	}
	m.Items = types.ListValueMust(itemType, elems)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// summarizeApplication reads the fields deckhouse_applications lists.
func summarizeApplication(obj *unstructured.Unstructured) applicationSummary {
	opt := func(fields ...string) *string {
		v, ok, err := unstructured.NestedString(obj.Object, fields...)
		if !ok || err != nil {
			return nil
		}
		return &v
	}
	st := readStatus(obj)
	return applicationSummary{
		Namespace:             obj.GetNamespace(),
		Name:                  obj.GetName(),
		PackageName:           opt("spec", "packageName"),
		PackageVersion:        opt("spec", "packageVersion"),
		PackageRepositoryName: opt("spec", "packageRepositoryName"),
		State:                 st.State,
		ConfigurationApplied:  st.ConditionStatus(dpclient.ConditionConfigurationApplied),
		ReadyCond:             st.ConditionStatus(dpclient.ConditionReady),
		Update:                appstatus.UpdateField.Read(obj),
		ResourceRequests:      appstatus.ResourceRequestsField.Read(obj),
	}
}

func (s applicationSummary) value() types.Object {
	return types.ObjectValueMust(applicationsItemAttrTypes, map[string]attr.Value{
		"namespace":               types.StringValue(s.Namespace),
		"name":                    types.StringValue(s.Name),
		"package_name":            types.StringPointerValue(s.PackageName),
		"package_version":         types.StringPointerValue(s.PackageVersion),
		"package_repository_name": types.StringPointerValue(s.PackageRepositoryName),
		"state":                   types.StringPointerValue(s.State),
		"configuration_applied":   types.StringPointerValue(s.ConfigurationApplied),
		"ready":                   types.StringPointerValue(s.ReadyCond),
		"update":                  s.Update,
		"resource_requests":       s.ResourceRequests,
	})
}
