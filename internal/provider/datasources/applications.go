package datasources

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
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

// applicationsItemAttrTypes are the attribute types of an item of
// deckhouse_applications: the listed spec fields of appstatus.SpecFields and
// those below.
var applicationsItemAttrTypes = func() map[string]attr.Type {
	out := map[string]attr.Type{
		"namespace":             types.StringType,
		"name":                  types.StringType,
		"state":                 types.StringType,
		"configuration_applied": types.StringType,
		"ready":                 types.StringType,
	}
	for _, f := range appstatus.SpecFields {
		if f.Listed {
			out[f.Attr] = f.Type
		}
	}
	return out
}()

func (d *ApplicationsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_applications"
}

func (d *ApplicationsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	item := map[string]schema.Attribute{
		"namespace":             str("Namespace of the Application."),
		"name":                  str("Name of the Application."),
		"state":                 str("`status.summary.state`, null until DP reports one."),
		"configuration_applied": str("Status of the `ConfigurationApplied` condition (`True`, `False`, `Unknown`), null when absent."),
		"ready":                 str("Status of the `Ready` condition (`True`, `False`, `Unknown`), null when absent."),
	}
	for _, f := range appstatus.SpecFields {
		if f.Listed {
			item[f.Attr] = f.DataSourceAttribute()
		}
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
				NestedObject:        schema.NestedAttributeObject{Attributes: item},
			},
		},
	}
}

func (d *ApplicationsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m applicationsDataModel
	cl := d.begin(ctx, req, resp, &m)
	if cl == nil {
		return
	}
	ns, pkg := m.Namespace.ValueString(), m.PackageName.ValueString()
	var items []*unstructured.Unstructured
	err := cl.ListApplications(ctx, ns, func(obj *unstructured.Unstructured) {
		if p, _, _ := unstructured.NestedString(obj.Object, "spec", "packageName"); pkg == "" || p == pkg {
			items = append(items, obj)
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
	slices.SortFunc(items, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
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
	for _, obj := range items {
		elems = append(elems, summarizeApplication(obj))
	}
	m.Items = types.ListValueMust(itemType, elems)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// summarizeApplication is the item of deckhouse_applications for obj.
func summarizeApplication(obj *unstructured.Unstructured) types.Object {
	st := readStatus(obj)
	values := map[string]attr.Value{
		"namespace":             types.StringValue(obj.GetNamespace()),
		"name":                  types.StringValue(obj.GetName()),
		"state":                 types.StringPointerValue(st.State),
		"configuration_applied": types.StringPointerValue(st.ConditionStatus(dpclient.ConditionConfigurationApplied)),
		"ready":                 types.StringPointerValue(st.ConditionStatus(dpclient.ConditionReady)),
	}
	for _, f := range appstatus.SpecFields {
		if f.Listed {
			values[f.Attr] = f.Read(obj)
		}
	}
	return types.ObjectValueMust(applicationsItemAttrTypes, values)
}
