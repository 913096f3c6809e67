package application

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

var (
	_ list.ListResource              = &ListResource{}
	_ list.ListResourceWithConfigure = &ListResource{}
)

// ListResource is `list "deckhouse_application"`: the Applications of a
// namespace or of every namespace, optionally of one package, for
// `terraform query` (Terraform 1.14 and later), which turns them into
// resource blocks and import blocks with -generate-config-out. Each result
// carries the resource identity (namespace, name) and, when asked for, the
// resource as an import would record it: spec and status, never the
// settings, since any value of spec.settings may be a secret.
type ListResource struct {
	data *providerdata.Data
}

// NewListResource returns the list resource of deckhouse_application.
func NewListResource() list.ListResource { return &ListResource{} }

type listConfigModel struct {
	Namespace   types.String `tfsdk:"namespace"`
	PackageName types.String `tfsdk:"package_name"`
}

func (l *ListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_application"
}

func (l *ListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Lists existing Applications, to import them: `terraform query -generate-config-out=generated.tf` " +
			"writes a `deckhouse_application` block and an `import` block for each. Needs the `list` verb on " +
			"`applications.deckhouse.io` in the namespace, or cluster-wide without `namespace`. Settings are not listed " +
			"(any value may be a secret; write them into the generated blocks) unless the provider's `import_settings` " +
			"is `\"read\"`, which lists them as they are in the cluster.",
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Namespace (project) to list. Every namespace when omitted.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"package_name": listschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only the Applications of this ApplicationPackage (`spec.packageName`).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

func (l *ListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.data = providerdata.From(req.ProviderData, &resp.Diagnostics)
}

func (l *ListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg listConfigModel
	var diags diag.Diagnostics
	diags.Append(req.Config.Get(ctx, &cfg)...)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	cl := providerdata.ClusterClient(ctx, l.data, &diags)
	if cl == nil {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	ns, pkg := cfg.Namespace.ValueString(), cfg.PackageName.ValueString()
	var objs []*unstructured.Unstructured
	err := cl.ListApplications(ctx, ns, func(obj *unstructured.Unstructured) {
		if p, _, _ := unstructured.NestedString(obj.Object, "spec", "packageName"); pkg == "" || p == pkg {
			objs = append(objs, obj)
		}
	})
	if err != nil {
		where := fmt.Sprintf("namespace %q", ns)
		if ns == "" {
			where = "every namespace"
		}
		diags.AddError("Cannot list Applications", fmt.Sprintf("Listing the Applications of %s: %v", where, err))
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	sort.Slice(objs, func(i, j int) bool {
		if objs[i].GetNamespace() != objs[j].GetNamespace() {
			return objs[i].GetNamespace() < objs[j].GetNamespace()
		}
		return objs[i].GetName() < objs[j].GetName()
	})
	r := &Resource{data: l.data}
	stream.Results = func(push func(list.ListResult) bool) {
		for i, obj := range objs {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			if !push(r.listResult(ctx, req, obj)) {
				return
			}
		}
	}
}

// listResult is one Application as a list result: its identity and, when
// asked for, the resource as an import records it.
func (r *Resource) listResult(ctx context.Context, req list.ListRequest, obj *unstructured.Unstructured) list.ListResult {
	res := req.NewListResult(ctx)
	res.DisplayName = obj.GetNamespace() + "/" + obj.GetName()
	res.Diagnostics.Append(res.Identity.Set(ctx, applicationIdentity{
		Namespace: types.StringValue(obj.GetNamespace()), Name: types.StringValue(obj.GetName()),
	})...)
	if !req.IncludeResource {
		return res
	}
	m := importedModel(obj.GetNamespace(), obj.GetName())
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	secrets := newRedactor(settings)
	res.Diagnostics.Append(r.fromObject(ctx, &m, obj, r.fieldManager(&m), secrets.Redact)...)
	if !r.readsImportedSettings() {
		// As after an import: any value may be a secret.
		withoutSecrets(&m)
	}
	res.Diagnostics.Append(res.Resource.Set(ctx, &m)...)
	return res
}
