package datasources

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
)

var _ datasource.DataSource = &PackageSettingsDataSource{}

// PackageSettingsDataSource evaluates settings against a package folder as
// DP does, without a cluster.
type PackageSettingsDataSource struct{}

// NewPackageSettings returns the deckhouse_package_settings data source.
func NewPackageSettings() datasource.DataSource { return &PackageSettingsDataSource{} }

type packageSettingsModel struct {
	PackagePath             types.String  `tfsdk:"package_path"`
	Settings                types.Dynamic `tfsdk:"settings"`
	PreviousSettings        types.Dynamic `tfsdk:"previous_settings"`
	PreviousRawSettings     types.Dynamic `tfsdk:"previous_raw_settings"`
	ProjectResources        types.Map     `tfsdk:"project_resources"`
	HookValues              types.Dynamic `tfsdk:"hook_values"`
	AllowDestructiveSwitch  types.Bool    `tfsdk:"allow_destructive_settings_switch"`
	VersionChange           types.Bool    `tfsdk:"version_change"`
	EffectiveSettings       types.Dynamic `tfsdk:"effective_settings"`
	Values                  types.Dynamic `tfsdk:"values"`
	PublishedSettingsSchema types.String  `tfsdk:"published_settings_schema"`
	PublishedValuesSchema   types.String  `tfsdk:"published_values_schema"`
}

func (d *PackageSettingsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_package_settings"
}

func (d *PackageSettingsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Evaluates application settings against a package folder with DP's rules, without a cluster: " +
			"validation (schema, CEL rules, immutable fields, grantable resources, settings switches), effective " +
			"settings, values and the published schemas. Any verdict of rejection is an error at the attribute path.",
		Attributes: map[string]schema.Attribute{
			"package_path": schema.StringAttribute{
				Required:    true,
				Description: "A package folder that contains `openapi/` (settings.yaml or config-values.yaml, values.yaml).",
			},
			"settings": schema.DynamicAttribute{
				Optional:    true,
				Description: "The user settings (Application.spec.settings). Default: an empty object.",
			},
			"previous_settings": schema.DynamicAttribute{
				Optional: true,
				Description: "The settings last applied: status.lastAppliedConfiguration (or the old spec.settings " +
					"when that is empty). When set, the evaluation is an update of an installed application: rules " +
					"referencing oldSelf run, immutable fields are checked and settings switches are detected. The " +
					"settings.yaml defaults are applied to it before the comparison, as DP does. Without " +
					"`previous_raw_settings`, rules referencing oldSelf see this document as given. With " +
					"`version_change = true`, rules referencing oldSelf are skipped.",
			},
			"previous_raw_settings": schema.DynamicAttribute{
				Optional: true,
				Description: "The previous settings as the user wrote them (the spec.settings DP last applied, " +
					"without any default). DP binds oldSelf to them: a key the user did not write is missing in " +
					"oldSelf (`has(oldSelf.x)` is false, and a rule that reads it passes). Used only with " +
					"`previous_settings`.",
			},
			"project_resources": schema.MapNestedAttribute{
				Optional: true,
				Description: "The project's AvailableClusterResource catalog, keyed by the name used in " +
					"`x-deckhouse-grantable-resource` (for example `storageclasses`). An absent key means no catalog " +
					"for that resource: the field is neither defaulted nor checked.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"default": schema.StringAttribute{
							Optional:    true,
							Description: "The project default name, injected when the field is empty or missing.",
						},
						"available": schema.ListAttribute{
							ElementType: types.StringType,
							Required:    true,
							Description: "Names available to the project. With a `default`, a given value outside this list is " +
								"rejected; without one nothing is checked (the specification), but a value outside the list " +
								"gets a warning, since DP's controller rejects it.",
						},
					},
				},
			},
			"version_change": schema.BoolAttribute{
				Optional: true,
				Description: "The update does not keep an installed version: the Application's `spec.packageVersion` " +
					"differs from the installed `status.currentVersion.version` (the package at `package_path` is the new " +
					"version), or nothing is installed (`status.currentVersion` is absent: the install has not finished, " +
					"or failed). DP runs the rules that reference oldSelf only while `status.currentVersion` exists and " +
					"equals `spec.packageVersion`; otherwise it skips them, and so does this data source: they are " +
					"neither run nor reported. The schema, the other CEL rules, immutable fields (against " +
					"`previous_settings`), grantable resources and settings switches are still checked. Used only with " +
					"`previous_settings`. Default false: the installed version is kept, and rules referencing oldSelf run.",
			},
			"hook_values": schema.DynamicAttribute{
				Optional:    true,
				Description: "Values set by hooks, validated against openapi/values.yaml including its CEL rules.",
			},
			"allow_destructive_settings_switch": schema.BoolAttribute{
				Optional: true,
				Description: "Acknowledge a settings switch with `impact: destructive` " +
					"(x-deckhouse-enum-switch-settings). Default false: such a switch is an error.",
			},
			"effective_settings": schema.DynamicAttribute{
				Computed:    true,
				Description: "The effective settings: settings.yaml defaults, project defaults of grantable fields, user settings.",
			},
			"values": schema.DynamicAttribute{
				Computed: true,
				Description: "The values templates get: the effective settings, values.yaml defaults and hook values " +
					"(without values.yaml: the effective settings plus hook values).",
			},
			"published_settings_schema": schema.StringAttribute{
				Computed:    true,
				Description: "The settings schema DP publishes in ApplicationPackageVersion, as JSON.",
			},
			"published_values_schema": schema.StringAttribute{
				Computed:    true,
				Description: "The values schema DP publishes in ApplicationPackageVersion, as JSON (null without values.yaml).",
			},
		},
	}
}

// Read evaluates the settings.
func (d *PackageSettingsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m packageSettingsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	unknownOut := func() {
		m.EffectiveSettings = types.DynamicUnknown()
		m.Values = types.DynamicUnknown()
		m.PublishedSettingsSchema = types.StringUnknown()
		m.PublishedValuesSchema = types.StringUnknown()
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	}
	if m.PackagePath.IsUnknown() {
		unknownOut()
		return
	}
	pkg, diags := loadPackageDir(m.PackagePath.ValueString(), path.Root("package_path"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	evalReq, known, diags := settingsRequest(&m)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !known {
		unknownOut()
		return
	}

	res := pkg.Evaluate(evalReq)
	roots := map[engine.Document]path.Path{
		engine.DocSettings:         path.Root("settings"),
		engine.DocHookValues:       path.Root("hook_values"),
		engine.DocPreviousSettings: path.Root("previous_settings"),
	}
	resp.Diagnostics.Append(diagnostics.FromProblemsByDocument(roots, path.Root("settings"), res.Problems)...)
	resp.Diagnostics.Append(diagnostics.Switches(path.Root("settings"), res.Switches, evalReq.AllowDestructiveSwitch)...)
	for _, w := range res.Warnings {
		resp.Diagnostics.AddAttributeWarning(diagnostics.AttributePath(path.Root("settings"), w.Path), "DP may reject this value", w.Message)
	}
	if resp.Diagnostics.HasError() {
		return
	}

	m.EffectiveSettings = convert.ToDynamic(nonNilObject(res.Effective))
	m.Values = convert.ToDynamic(nonNilObject(res.Values))
	m.PublishedSettingsSchema = types.StringValue(string(pkg.PublishedSettings()))
	m.PublishedValuesSchema = bytesString(pkg.PublishedValues())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func nonNilObject(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// loadPackageDir loads a package folder, reporting failures at attr.
func loadPackageDir(dir string, attr path.Path) (*engine.Package, diag.Diagnostics) {
	var diags diag.Diagnostics
	if dir == "" {
		diags.AddAttributeError(attr, "Invalid package path", "The package path is empty: expected a folder that contains openapi/.")
		return nil, diags
	}
	pkg, err := engine.LoadDir(dir)
	if err != nil {
		diags.AddAttributeError(attr, "Cannot load the package", fmt.Sprintf("Package %q: %s", dir, err))
		return nil, diags
	}
	return pkg, diags
}

// settingsRequest converts the inputs into an engine request. known is false
// when any input is not yet known.
func settingsRequest(m *packageSettingsModel) (engine.Request, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := engine.Request{}
	known := true

	object := func(name string, v types.Dynamic) (any, bool) {
		val, k, err := convert.FromDynamic(v)
		if err != nil {
			diags.AddAttributeError(path.Root(name), "Invalid "+name, err.Error())
			return nil, false
		}
		if !k {
			known = false
			return nil, false
		}
		if val == nil {
			return nil, false
		}
		if _, ok := val.(map[string]any); !ok {
			diags.AddAttributeError(path.Root(name), "Invalid "+name+": type",
				fmt.Sprintf("%s must be an object, got %s.", name, jsonvalue.TypeName(val)))
			return nil, false
		}
		return val, true
	}

	if v, ok := object("settings", m.Settings); ok {
		req.Settings = v
	} else {
		req.Settings = map[string]any{}
	}
	if v, ok := object("previous_settings", m.PreviousSettings); ok {
		req.Previous = v
		req.HasPrevious = true
	}
	if v, ok := object("previous_raw_settings", m.PreviousRawSettings); ok && req.HasPrevious {
		req.PreviousRaw, req.HasPreviousRaw = v, true
	}
	if v, ok := object("hook_values", m.HookValues); ok {
		req.HookValues = v
	}
	switch {
	case m.VersionChange.IsUnknown():
		known = false
	case req.HasPrevious:
		req.VersionChange = m.VersionChange.ValueBool()
	}
	switch {
	case m.AllowDestructiveSwitch.IsUnknown():
		known = false
	case !m.AllowDestructiveSwitch.IsNull():
		req.AllowDestructiveSwitch = m.AllowDestructiveSwitch.ValueBool()
	}
	switch {
	case m.ProjectResources.IsUnknown():
		known = false
	case !m.ProjectResources.IsNull():
		cat, k := catalogFromMap(m.ProjectResources)
		if !k {
			known = false
		}
		req.Catalog = cat
	}
	return req, known, diags
}

// catalogFromMap converts project_resources into an engine catalog.
func catalogFromMap(v types.Map) (engine.Catalog, bool) {
	cat := engine.Catalog{}
	known := true
	for name, e := range v.Elements() {
		obj, ok := e.(types.Object)
		if !ok || obj.IsUnknown() {
			known = false
			continue
		}
		if obj.IsNull() {
			continue
		}
		attrs := obj.Attributes()
		gc := engine.GrantCatalog{}
		if d, ok := attrs["default"].(types.String); ok {
			if d.IsUnknown() {
				known = false
			}
			gc.Default = d.ValueString()
		}
		if l, ok := attrs["available"].(types.List); ok {
			if l.IsUnknown() {
				known = false
			}
			for _, a := range l.Elements() {
				s, ok := a.(types.String)
				if !ok || s.IsUnknown() {
					known = false
					continue
				}
				if !s.IsNull() {
					gc.Available = append(gc.Available, s.ValueString())
				}
			}
		}
		cat[name] = gc
	}
	return cat, known
}
