package datasources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSource              = &AvailableClusterResourceDataSource{}
	_ datasource.DataSourceWithConfigure = &AvailableClusterResourceDataSource{}
)

// NewAvailableClusterResource returns deckhouse_available_cluster_resource.
func NewAvailableClusterResource() datasource.DataSource {
	return &AvailableClusterResourceDataSource{}
}

// AvailableClusterResourceDataSource reads one project's grant catalog.
type AvailableClusterResourceDataSource struct {
	cluster
}

type availableClusterResourceModel struct {
	ID        types.String `tfsdk:"id"`
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	Found     types.Bool   `tfsdk:"found"`
	Default   types.String `tfsdk:"default"`
	Available types.List   `tfsdk:"available"`
}

func (d *AvailableClusterResourceDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_available_cluster_resource"
}

func (d *AvailableClusterResourceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads an AvailableClusterResource (`multitenancy.deckhouse.io/v1alpha1`): the cluster-wide " +
			"resources of one kind granted to a project, and the project default. Its name is the value used in " +
			"`x-deckhouse-grantable-resource` (for example `storageclasses`). A missing object gives `found = false`: " +
			"DP then injects and checks nothing for that resource.",
		Attributes: map[string]schema.Attribute{
			"id":        schema.StringAttribute{Computed: true, MarkdownDescription: "`<namespace>/<name>`."},
			"namespace": schema.StringAttribute{Required: true, MarkdownDescription: "Project namespace."},
			"name":      schema.StringAttribute{Required: true, MarkdownDescription: "Resource name, for example `storageclasses`."},
			"found":     schema.BoolAttribute{Computed: true, MarkdownDescription: "The AvailableClusterResource exists."},
			"default":   schema.StringAttribute{Computed: true, MarkdownDescription: "The project default (`status.default`), null when none."},
			"available": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Names available to the project (`status.available[].name`)."},
		},
	}
}

func (d *AvailableClusterResourceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m availableClusterResourceModel
	cl := d.begin(ctx, req, resp, &m)
	if cl == nil {
		return
	}
	g, err := cl.GrantCatalog(ctx, m.Namespace.ValueString(), m.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the AvailableClusterResource", err.Error())
		return
	}
	m.ID = types.StringValue(m.Namespace.ValueString() + "/" + m.Name.ValueString())
	m.Found = types.BoolValue(g.Found)
	m.Default = types.StringNull()
	if g.Catalog.Default != "" {
		m.Default = types.StringValue(g.Catalog.Default)
	}
	elems := make([]attr.Value, 0, len(g.Catalog.Available))
	for _, n := range g.Catalog.Available {
		elems = append(elems, types.StringValue(n))
	}
	m.Available = types.ListValueMust(types.StringType, elems)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
