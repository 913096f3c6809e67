package datasources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

var (
	_ datasource.DataSource                   = &PackageDataSource{}
	_ datasource.DataSourceWithValidateConfig = &PackageDataSource{}
)

// The values of fail_on.
const (
	failOnError   = "error"
	failOnWarning = "warning"
	failOnNever   = "never"
)

var (
	settingFieldAttrTypes = map[string]attr.Type{
		"name":        types.StringType,
		"type":        types.StringType,
		"description": types.StringType,
		"ui_order":    types.Int64Type,
		"ui_group":    types.StringType,
		"ui_advanced": types.BoolType,
	}
	orphanAttrTypes = map[string]attr.Type{
		"kind":    types.StringType,
		"version": types.StringType,
	}
	findingAttrTypes = map[string]attr.Type{
		"rule":        types.StringType,
		"severity":    types.StringType,
		"file":        types.StringType,
		"schema_path": types.StringType,
		"message":     types.StringType,
	}
)

// PackageDataSource describes a package folder: its schemas, its settings
// form and the findings of the openapi rules of `d8 package verify`.
type PackageDataSource struct{}

// NewPackage returns the deckhouse_package data source.
func NewPackage() datasource.DataSource { return &PackageDataSource{} }

type packageModel struct {
	Path                    types.String `tfsdk:"path"`
	FailOn                  types.String `tfsdk:"fail_on"`
	SettingsSchemaFile      types.String `tfsdk:"settings_schema_file"`
	PublishedSettingsSchema types.String `tfsdk:"published_settings_schema"`
	PublishedValuesSchema   types.String `tfsdk:"published_values_schema"`
	Settings                types.List   `tfsdk:"settings"`
	Verify                  types.List   `tfsdk:"verify"`
	OrphanResources         types.List   `tfsdk:"orphan_resources"`
}

func (d *PackageDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_package"
}

func (d *PackageDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Reads a package folder without a cluster: which settings schema file DP uses, the schemas DP " +
			"publishes, the top-level settings with their form metadata, and the findings of the openapi rules of " +
			"`d8 package verify`.",
		Attributes: map[string]schema.Attribute{
			"path": schema.StringAttribute{
				Required:    true,
				Description: "A package folder that contains `openapi/`.",
			},
			"fail_on": schema.StringAttribute{
				Optional: true,
				Description: "Which verify findings fail the data source: `error` (default: findings of severity " +
					"error are errors, warnings are warnings), `warning` (every finding is an error) or `never` " +
					"(findings are only listed in `verify`).",
			},
			"settings_schema_file": schema.StringAttribute{
				Computed:    true,
				Description: "The settings schema file DP uses: `settings.yaml`, or `config-values.yaml` when settings.yaml is absent.",
			},
			"published_settings_schema": schema.StringAttribute{
				Computed:    true,
				Description: "The settings schema DP publishes in ApplicationPackageVersion, as JSON.",
			},
			"published_values_schema": schema.StringAttribute{
				Computed:    true,
				Description: "The values schema DP publishes, as JSON (null without values.yaml).",
			},
			"settings": schema.ListNestedAttribute{
				Computed:    true,
				Description: "The top-level settings with their form metadata, in schema order.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name":        schema.StringAttribute{Computed: true, Description: "Field name."},
						"type":        schema.StringAttribute{Computed: true, Description: "Schema type (empty when the schema has none)."},
						"description": schema.StringAttribute{Computed: true, Description: "Description from the schema."},
						"ui_order":    schema.Int64Attribute{Computed: true, Description: "x-deckhouse-ui-order (null when unset)."},
						"ui_group":    schema.StringAttribute{Computed: true, Description: "x-deckhouse-ui-group (empty when unset)."},
						"ui_advanced": schema.BoolAttribute{Computed: true, Description: "x-deckhouse-ui-advanced."},
					},
				},
			},
			"orphan_resources": schema.ListNestedAttribute{
				Computed: true,
				Description: "The kinds of objects DP deletes together with an application of this package after " +
					"uninstalling its release: the default of `orphanResources` in openapi/values.yaml. DP deletes " +
					"the objects of these kinds in the application's namespace labelled " +
					"`packages.deckhouse.io/instance=<application name>`, except cluster-scoped kinds and objects " +
					"whose helm or werf resource policy is `keep` (or `skip-delete`) or whose ownership annotation " +
					"says `anyone`.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"kind":    schema.StringAttribute{Computed: true, Description: "Kind, e.g. `PersistentVolumeClaim`."},
						"version": schema.StringAttribute{Computed: true, Description: "`v1` (every API group serving that version) or a group-qualified version such as `batch/v1`."},
					},
				},
			},
			"verify": schema.ListNestedAttribute{
				Computed: true,
				Description: "Findings of the openapi rules of `d8 package verify` (bilingual, advanced, enum, extensions), " +
					"and `publish` errors: a value DP's typed decode refuses, so DP never publishes the version.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"rule":        schema.StringAttribute{Computed: true, Description: "Rule name."},
						"severity":    schema.StringAttribute{Computed: true, Description: "`error` or `warning`."},
						"file":        schema.StringAttribute{Computed: true, Description: "File, e.g. `openapi/settings.yaml`."},
						"schema_path": schema.StringAttribute{Computed: true, Description: "Place inside the schema, e.g. `/properties/storage`."},
						"message":     schema.StringAttribute{Computed: true, Description: "What is wrong."},
					},
				},
			},
		},
	}
}

// ValidateConfig checks fail_on.
func (d *PackageDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var failOn types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fail_on"), &failOn)...)
	resp.Diagnostics.Append(checkFailOn(failOn)...)
}

func checkFailOn(v types.String) diag.Diagnostics {
	var diags diag.Diagnostics
	if v.IsNull() || v.IsUnknown() {
		return diags
	}
	switch v.ValueString() {
	case failOnError, failOnWarning, failOnNever:
	default:
		diags.AddAttributeError(path.Root("fail_on"), "Invalid fail_on",
			fmt.Sprintf("fail_on must be one of %q, %q or %q, got %q.", failOnError, failOnWarning, failOnNever, v.ValueString()))
	}
	return diags
}

// Read loads and verifies the package.
func (d *PackageDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m packageModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	resp.Diagnostics.Append(checkFailOn(m.FailOn)...)
	if resp.Diagnostics.HasError() {
		return
	}
	dir := m.Path.ValueString()
	findings, err := engine.VerifyDir(dir)
	if err != nil {
		// A folder that cannot be read at all: the load error says why.
		if _, diags := loadPackageDir(dir, path.Root("path")); diags.HasError() {
			resp.Diagnostics.Append(diags...)
			return
		}
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Cannot verify the package", fmt.Sprintf("Package %q: %s", dir, err))
		return
	}
	failOn := failOnError
	if !m.FailOn.IsNull() {
		failOn = m.FailOn.ValueString()
	}
	resp.Diagnostics.Append(findingDiagnostics(findings, failOn)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pkg, diags := loadPackageDir(dir, path.Root("path"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	m.SettingsSchemaFile = types.StringValue(pkg.SettingsFile())
	m.PublishedSettingsSchema = types.StringValue(string(pkg.PublishedSettings()))
	m.PublishedValuesSchema = bytesString(pkg.PublishedValues())
	m.Settings = settingFieldList(pkg.Fields())
	m.Verify = findingList(findings)
	m.OrphanResources = orphanList(pkg.OrphanResources())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// findingDiagnostics turns verify findings into diagnostics as fail_on says.
func findingDiagnostics(findings []engine.Finding, failOn string) diag.Diagnostics {
	var diags diag.Diagnostics
	if failOn == failOnNever {
		return diags
	}
	for _, f := range findings {
		summary := fmt.Sprintf("Package verify %s: %s", f.Severity, f.Rule)
		where := f.File
		if f.SchemaPath != "" {
			where += " at " + f.SchemaPath
		}
		detail := strings.TrimSpace(where + ": " + f.Message)
		if f.Severity == engine.SeverityError || failOn == failOnWarning {
			diags.AddAttributeError(path.Root("path"), summary, detail)
		} else {
			diags.AddAttributeWarning(path.Root("path"), summary, detail)
		}
	}
	return diags
}

func settingFieldList(fields []engine.Field) types.List {
	elems := []attr.Value{}
	for _, f := range fields {
		if len(f.Path) != 1 || f.Path[0].IsIndex {
			continue
		}
		order := types.Int64Null()
		if f.UIOrder != nil {
			order = types.Int64Value(int64(*f.UIOrder))
		}
		elems = append(elems, types.ObjectValueMust(settingFieldAttrTypes, map[string]attr.Value{
			"name":        types.StringValue(f.Path[0].Key),
			"type":        types.StringValue(f.Type),
			"description": types.StringValue(f.Description),
			"ui_order":    order,
			"ui_group":    types.StringValue(f.UIGroup),
			"ui_advanced": types.BoolValue(f.UIAdvanced),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: settingFieldAttrTypes}, elems)
}

func findingList(findings []engine.Finding) types.List {
	elems := []attr.Value{}
	for _, f := range findings {
		elems = append(elems, types.ObjectValueMust(findingAttrTypes, map[string]attr.Value{
			"rule":        types.StringValue(f.Rule),
			"severity":    types.StringValue(string(f.Severity)),
			"file":        types.StringValue(f.File),
			"schema_path": types.StringValue(f.SchemaPath),
			"message":     types.StringValue(f.Message),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: findingAttrTypes}, elems)
}

func orphanList(orphans []engine.OrphanResource) types.List {
	elems := []attr.Value{}
	for _, o := range orphans {
		elems = append(elems, types.ObjectValueMust(orphanAttrTypes, map[string]attr.Value{
			"kind":    types.StringValue(o.Kind),
			"version": types.StringValue(o.Version),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: orphanAttrTypes}, elems)
}
