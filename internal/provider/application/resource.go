// Package application is the deckhouse_application resource: its schema
// (resource.go), model and change checks (model.go), plan (plan.go), DP's
// checks with their plan and apply entry points (verdict.go) and the
// previous document of the update checks (previous.go), create and update
// (write.go), the server-side apply body and write options (writebody.go),
// refresh (read.go), delete (delete.go), the private state (privatestate.go),
// the sensitive paths (paths.go), the redaction of sensitive values
// (redact.go) and the resource's answers to the protocol shortcuts of
// package fastpath (shortcuts.go).
package application

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
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

func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Deckhouse Platform `Application` (`deckhouse.io/v1alpha1`): one installed instance of a package in a " +
			"namespace. The plan validates `settings` as DP would (schema, CEL rules, project grants, immutable fields, " +
			"enum switches) and shows the effective settings; apply writes the Application with server-side apply and " +
			"waits until DP has applied the settings.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`<namespace>/<name>`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the Application: a DNS-1123 label (lower case letters, digits and `-`) of at most 24 characters. Changing it replaces the Application.",
				Validators:          []validator.String{applicationNameValidator{}},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"namespace": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Namespace (project) of the Application. Changing it replaces the Application.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"package_name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the ApplicationPackage (`spec.packageName`). Changing it replaces the Application.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"package_version": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Version of the package (`spec.packageVersion`), for example `v1.0.0`. Changing it upgrades in place.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"package_repository_name": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "PackageRepository the version comes from (`spec.packageRepositoryName`). When omitted and " +
					"exactly one repository offers the package (`ApplicationPackage.status.availableRepositories`), that one " +
					"is used and shown in the plan; otherwise the plan fails listing the choices.",
			},
			"release_channel": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Release channel (`spec.releaseChannel`).",
			},
			"maintenance": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Maintenance mode (`spec.maintenance`): `NoResourceReconciliation`.",
				Validators:          []validator.String{stringvalidator.OneOf("NoResourceReconciliation")},
			},
			"labels": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Labels of the Application object. Labels added by others are not managed.",
			},
			"annotations": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Annotations of the Application object. Annotations added by others are not managed.",
			},
			"settings": schema.DynamicAttribute{
				Optional: true,
				MarkdownDescription: "Settings of the application (`spec.settings`), an object validated at plan against the " +
					"settings schema published in the ApplicationPackageVersion.",
			},
			"sensitive_settings": schema.DynamicAttribute{
				Optional:  true,
				WriteOnly: true,
				MarkdownDescription: "Secret settings, deep-merged into `spec.settings` at apply and validated at plan together " +
					"with `settings`. Write-only: never stored in the plan or the state and never reported as drift. " +
					"Change `sensitive_settings_version` to write new values. Requires Terraform or OpenTofu 1.11 or later.",
			},
			"sensitive_settings_version": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Any value; changing it writes `sensitive_settings` again.",
			},
			"immutable_field_change": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(immutableModeError),
				MarkdownDescription: "What a change of an `x-deckhouse-immutable` field does: `error` (default, as DP's webhook: " +
					"the plan fails naming each field) or `replace` (the plan replaces the Application, naming the field).",
				Validators: []validator.String{stringvalidator.OneOf(immutableModeError, immutableModeReplace)},
			},
			"settings_checks": settingsChecksAttribute(),
			"allow_destructive_settings_switch": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "Acknowledges a settings switch with `impact: destructive` " +
					"(`x-deckhouse-enum-switch-settings`). When true, apply writes the annotation " +
					"`" + allowDestructiveSwitchAnnotation + ": \"true\"`.",
			},
			"wait": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
				MarkdownDescription: "Wait after create and update until DP has applied the settings " +
					"(condition `ConfigurationApplied` for the new generation), and after delete until the object is gone.",
			},
			"wait_for": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(dpclient.ConditionConfigurationApplied),
				MarkdownDescription: "The condition a wait ends on: `ConfigurationApplied` (default: DP applied the settings of " +
					"the new generation) or `Ready` (also the application's `Ready` condition, for resources that use the " +
					"application right after).",
				Validators: []validator.String{stringvalidator.OneOf(dpclient.ConditionConfigurationApplied, dpclient.ConditionReady)},
			},
			"field_manager": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Field manager of the server-side apply of this Application. Default: the provider's `field_manager`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"force_conflicts": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Take over fields that other field managers own. Default: the provider's `force_conflicts`.",
			},
			"effective_settings": schema.DynamicAttribute{
				Computed: true,
				MarkdownDescription: appstatus.EffectiveSettingsDescription + " Here computed at plan from `settings` " +
					"(unknown when the package version cannot be read at plan), with the project defaults DP will inject; " +
					"values of `sensitive_settings` are not included. After an import, DP's record when DP has " +
					"applied the current generation, else null until the first apply.",
			},
			"status": appstatus.ResourceAttribute(),
			"last_applied_settings": schema.DynamicAttribute{
				Computed: true,
				MarkdownDescription: appstatus.LastAppliedSettingsDescription + " Here without the paths supplied by " +
					"`sensitive_settings` or owned by other field managers.",
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true, Update: true, Delete: true,
				CreateDescription: "How long a create may take, including the wait for DP: a Go duration such as `30s`, `10m` or `1h`. Default `15m`.",
				UpdateDescription: "How long an update may take, including the wait for DP. Default `15m`.",
				DeleteDescription: "How long a delete may take, including the wait until the Application is gone. Default `10m`.",
			}),
		},
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
	set := func(attr string, v any) {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), v)...)
	}
	set("id", namespace+"/"+name)
	set("namespace", namespace)
	set("name", name)
	set("immutable_field_change", immutableModeError)
	set("allow_destructive_settings_switch", false)
	set("wait", true)
	set("wait_for", dpclient.ConditionConfigurationApplied)
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
