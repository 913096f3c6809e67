package datasources

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

var (
	_ datasource.DataSource              = &PackageVersionDataSource{}
	_ datasource.DataSourceWithConfigure = &PackageVersionDataSource{}
)

// NewPackageVersion returns deckhouse_application_package_version.
func NewPackageVersion() datasource.DataSource { return &PackageVersionDataSource{} }

// PackageVersionDataSource reads one ApplicationPackageVersion.
type PackageVersionDataSource struct {
	cluster
}

type packageVersionModel struct {
	ID             types.String `tfsdk:"id"`
	Repository     types.String `tfsdk:"repository"`
	Package        types.String `tfsdk:"package"`
	Version        types.String `tfsdk:"version"`
	SettingsSchema types.String `tfsdk:"settings_schema"`
	ValuesSchema   types.String `tfsdk:"values_schema"`
	Metadata       types.String `tfsdk:"metadata"`
	Ready          types.Bool   `tfsdk:"ready"`
	Draft          types.Bool   `tfsdk:"draft"`
	MetadataLoaded types.Bool   `tfsdk:"metadata_loaded"`
}

func (d *PackageVersionDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_application_package_version"
}

func (d *PackageVersionDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the ApplicationPackageVersion `<repository>-<package>-<version>` from the cluster: " +
			"the schemas DP published for it, its metadata and whether it can be installed. A version that does not " +
			"exist (yet) gives `ready = false` and null schemas, not an error.",
		Attributes: map[string]schema.Attribute{
			"id":              schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the ApplicationPackageVersion."},
			"repository":      schema.StringAttribute{Required: true, MarkdownDescription: "PackageRepository name."},
			"package":         schema.StringAttribute{Required: true, MarkdownDescription: "ApplicationPackage name."},
			"version":         schema.StringAttribute{Required: true, MarkdownDescription: "Package version, for example `v1.0.0`."},
			"settings_schema": schema.StringAttribute{Computed: true, MarkdownDescription: "Published settings schema (JSON), null when not published."},
			"values_schema":   schema.StringAttribute{Computed: true, MarkdownDescription: "Published values schema (JSON), null when not published."},
			"metadata":        schema.StringAttribute{Computed: true, MarkdownDescription: "`status.packageMetadata` (JSON), null when absent."},
			"ready":           schema.BoolAttribute{Computed: true, MarkdownDescription: "The version exists, is not a draft and has `MetadataLoaded=True`: it can be installed."},
			"draft":           schema.BoolAttribute{Computed: true, MarkdownDescription: "The version carries the label `packages.deckhouse.io/draft`."},
			"metadata_loaded": schema.BoolAttribute{Computed: true, MarkdownDescription: "The condition `MetadataLoaded` is True."},
		},
	}
}

func (d *PackageVersionDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m packageVersionModel
	cl := d.begin(ctx, req, resp, &m)
	if cl == nil {
		return
	}
	name := dpapi.PackageVersionName(m.Repository.ValueString(), m.Package.ValueString(), m.Version.ValueString())
	info, err := cl.PackageVersion(ctx, name)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the package version", err.Error())
		return
	}
	m.ID = types.StringValue(name)
	m.SettingsSchema = bytesString(info.SettingsSchema)
	m.ValuesSchema = bytesString(info.ValuesSchema)
	m.Metadata = types.StringNull()
	if info.Metadata != nil {
		b, err := json.Marshal(info.Metadata)
		if err == nil {
			m.Metadata = types.StringValue(string(b))
		}
	}
	m.Draft = types.BoolValue(info.Draft)
	m.MetadataLoaded = types.BoolValue(info.MetadataLoaded)
	m.Ready = types.BoolValue(info.Ready())
	if info.Found && info.CompileErr != nil {
		resp.Diagnostics.AddWarning("Published schemas do not compile",
			fmt.Sprintf("The schemas published in ApplicationPackageVersion %q cannot be compiled: %v", name, info.CompileErr))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func bytesString(b []byte) types.String {
	if b == nil {
		return types.StringNull()
	}
	return types.StringValue(string(b))
}
