package application

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

var (
	_ resource.Resource                   = &Resource{}
	_ resource.ResourceWithConfigure      = &Resource{}
	_ resource.ResourceWithModifyPlan     = &Resource{}
	_ resource.ResourceWithImportState    = &Resource{}
	_ resource.ResourceWithIdentity       = &Resource{}
	_ resource.ResourceWithValidateConfig = &Resource{}
)

// Annotation DP reads as the acknowledgement of a destructive settings switch.
const allowDestructiveSwitchAnnotation = dpapi.AnnotationAllowDestructiveSwitch

// Values of immutable_field_change.
const (
	immutableModeError   = "error"
	immutableModeReplace = "replace"
)

// Default operation timeouts.
const (
	defaultCreateTimeout = 15 * time.Minute
	defaultUpdateTimeout = 15 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

// maxApplicationNameLength is the limit of the DP webhook on Application names.
const maxApplicationNameLength = 24

// TypeName is the resource type name.
const TypeName = "deckhouse_application"

// NewResource returns the deckhouse_application resource.
func NewResource() resource.Resource { return &Resource{} }

// Resource is the deckhouse_application resource: it manages one DP
// Application.
type Resource struct {
	data *providerdata.Data
}

func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_application"
}

func (r *Resource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs, blocks := schemaAttributes()
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Deckhouse Platform `Application` (`deckhouse.io/v1alpha1`): one installed instance of a package in a " +
			"namespace. The plan validates `settings` as DP would (schema, CEL rules, project grants, immutable fields, " +
			"enum switches) and shows the effective settings; apply writes the Application with server-side apply and " +
			"waits until DP has applied the settings.",
		Version:    stateVersion,
		Attributes: attrs,
		Blocks:     blocks,
	}
}

func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"namespace": identityschema.StringAttribute{RequiredForImport: true, Description: "Namespace of the Application."},
			"name":      identityschema.StringAttribute{RequiredForImport: true, Description: "Name of the Application."},
		},
	}
}

func (r *Resource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerdata.From(req.ProviderData, &resp.Diagnostics)
}

func (r *Resource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var requests types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("resource_requests"), &requests)...)
	resp.Diagnostics.Append(appstatus.ValidateResourceRequests(ctx, requests, path.Root("resource_requests"))...)
	var t timeouts.Value
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("timeouts"), &t)...)
	if resp.Diagnostics.HasError() || t.IsNull() || t.IsUnknown() {
		return
	}
	for name, v := range t.Attributes() {
		s, ok := v.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if d, err := time.ParseDuration(s.ValueString()); err == nil && d <= 0 {
			resp.Diagnostics.AddAttributeError(path.Root("timeouts").AtName(name), "Invalid timeout",
				fmt.Sprintf("timeouts.%s must be a positive duration such as 30s, 10m or 1h.", name))
		}
	}
}

func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var namespace, name string
	if req.ID != "" {
		parts := strings.Split(req.ID, "/")
		if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
			resp.Diagnostics.AddError("Invalid import ID",
				fmt.Sprintf("Import an Application by \"<namespace>/<name>\", got %q.", req.ID))
			return
		}
		namespace, name = parts[0], parts[1]
	} else if req.Identity != nil {
		var id applicationIdentity
		resp.Diagnostics.Append(req.Identity.Get(ctx, &id)...)
		if resp.Diagnostics.HasError() {
			return
		}
		namespace, name = id.Namespace.ValueString(), id.Name.ValueString()
	}
	if namespace == "" || name == "" {
		resp.Diagnostics.AddError("Invalid import identity", "Both namespace and name are required to import an Application.")
		return
	}
	m := importedModel(namespace, name)
	resp.Diagnostics.Append(setModel(ctx, &resp.State, &m)...)
	resp.Diagnostics.Append(privateState{Imported: true}.write(ctx, resp.Private)...)
	if resp.Identity != nil {
		resp.Diagnostics.Append(resp.Identity.Set(ctx, applicationIdentity{
			Namespace: types.StringValue(namespace), Name: types.StringValue(name),
		})...)
	}
}

// applicationNameValidator enforces DP's limit on Application names.
type applicationNameValidator struct{}

func (applicationNameValidator) Description(context.Context) string {
	return fmt.Sprintf("a DNS-1123 label (lower case letters, digits and '-', starting and ending with a letter or digit) of at most %d characters", maxApplicationNameLength)
}

func (v applicationNameValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (applicationNameValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	switch {
	case s == "":
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Application name", "name must not be empty.")
	case len(s) > maxApplicationNameLength:
		resp.Diagnostics.AddAttributeError(req.Path, "Application name too long",
			fmt.Sprintf("name %q has %d characters; DP accepts at most %d.", s, len(s), maxApplicationNameLength))
	default:
		if errs := validation.IsDNS1123Label(s); len(errs) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid Application name",
				fmt.Sprintf("name %q is not a valid Kubernetes name: %s.", s, strings.Join(errs, "; ")))
		}
	}
}
