package datasources

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
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

func (d *ApplicationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_application"
}

func (d *ApplicationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = applicationSchema()
}

// applicationSchema is the schema of deckhouse_application: the spec fields
// of appstatus.SpecFields and the attributes below.
func applicationSchema() schema.Schema {
	attrs := map[string]schema.Attribute{
		"id":        schema.StringAttribute{Computed: true, MarkdownDescription: "`<namespace>/<name>`."},
		"namespace": schema.StringAttribute{Required: true, MarkdownDescription: "Namespace (project) of the Application."},
		"name":      schema.StringAttribute{Required: true, MarkdownDescription: "Name of the Application."},
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
	}
	for _, f := range appstatus.SpecFields {
		attrs[f.Attr] = f.DataSourceAttribute()
	}
	return schema.Schema{
		MarkdownDescription: "Reads one existing Application (`deckhouse.io/v1alpha1`) by namespace and name: its spec, its " +
			"effective settings, the settings DP applied last and its status. Use it for Applications managed elsewhere (another " +
			"configuration, `kubectl`, the DP console). An Application that does not exist is an error.\n\n" +
			"`settings`, `effective_settings` and `last_applied_settings` are sensitive: `spec.settings` may hold values written through the " +
			"write-only `sensitive_settings` of the `deckhouse_application` resource, and the object does not say which " +
			"paths those are. Read a value with `nonsensitive()` only when you know it is not a secret.\n\n" +
			"A configuration that reads secrets from an Application should use the ephemeral resource `deckhouse_application` " +
			"instead: it reads the same values and stores none of them in the plan or the state (Terraform 1.10, OpenTofu 1.11 or later).",
		Attributes: attrs,
	}
}

func (d *ApplicationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.deferred(ctx, req, resp) {
		return
	}
	var ns, name string
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("namespace"), &ns)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cl := providerdata.ClusterClient(ctx, d.data, &resp.Diagnostics)
	if cl == nil {
		return
	}
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
	resp.Diagnostics.Append(resp.State.Set(ctx, applicationValue(obj))...)
}

// applicationValue is the object of deckhouse_application for obj.
func applicationValue(obj *unstructured.Unstructured) types.Object {
	ns, name := obj.GetNamespace(), obj.GetName()
	values := map[string]attr.Value{
		"id":                    types.StringValue(ns + "/" + name),
		"namespace":             types.StringValue(ns),
		"name":                  types.StringValue(name),
		"labels":                stringMapValue(obj.GetLabels()),
		"annotations":           stringMapValue(obj.GetAnnotations()),
		"settings":              nestedDynamic(obj, "spec", "settings"),
		"effective_settings":    dynamicOf(appstatus.EffectiveSettings(obj)),
		"last_applied_settings": dynamicOf(appstatus.LastApplied(obj)),
		"status":                readStatus(obj).Value(),
	}
	for _, f := range appstatus.SpecFields {
		values[f.Attr] = f.Read(obj)
	}
	return types.ObjectValueMust(applicationType().AttrTypes, values)
}

// applicationType is the object type of deckhouse_application.
var applicationType = sync.OnceValue(func() types.ObjectType {
	t, _ := applicationSchema().Type().(types.ObjectType) // the framework's schema type is an ObjectType
	return t
})

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
