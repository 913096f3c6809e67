package appstatus

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// The typed spec fields of an Application that newer DP releases added:
// spec.update and spec.resourceRequests. The resource writes and reads them,
// the data sources read them; both schemas and every conversion come from
// here. Terraform names are DP's JSON names in snake case (blockOnAlerts is
// block_on_alerts).

// DP's rules for the two fields (its Application CRD).
var (
	// UpdateModes are the values of spec.update.mode.
	UpdateModes = []string{"AutoPatch", "Auto", "Manual"}
	// WindowDays are the values of spec.update.windows[].days.
	WindowDays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	// WindowTime is the pattern of spec.update.windows[].from and .to: UTC
	// H:MM or HH:MM.
	WindowTime = regexp.MustCompile(`^(?:\d|[01]\d|2[0-3]):[0-5]\d$`)
	// WorkloadKinds are the values of spec.resourceRequests[].kind.
	WorkloadKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod", "Job", "CronJob"}
	// ReplicaKinds are the kinds whose entry may set replicas.
	ReplicaKinds = []string{"Deployment", "StatefulSet", "ReplicaSet"}
)

// Severity bounds and default of spec.update.blockOnAlerts.severity.
const (
	MinSeverity     = 0
	MaxSeverity     = 9
	DefaultSeverity = 4
	// DefaultUpdateMode is the CRD default of spec.update.mode.
	DefaultUpdateMode = "AutoPatch"
)

// crdDefaults are the values DP's CRD writes into an object where the
// field is absent, by JSON path below spec. A refresh keeps such a field
// null when the configuration left it null and the cluster holds exactly
// this value, so an omitted field is not drift.
var crdDefaults = map[string]any{
	"update.mode":                   DefaultUpdateMode,
	"update.blockOnAlerts.severity": int64(DefaultSeverity),
}

const (
	updateDescription = "How DP updates this application (`spec.update`). Null (omitted) means DP's own fallback: " +
		"the global `applications.update` setting, else the `deckhouse` module's `update` setting. A null field " +
		"inside is left to DP's default too."
	resourceRequestsDescription = "Per-workload overrides of the package's replicas and container resources " +
		"(`spec.resourceRequests`), one entry per `kind` + `name` (DP's list-map keys). Null (omitted) means the " +
		"package's own values. Container resources are merged per resource name over what the package declares."
)

// UpdateResourceAttribute is the update attribute of the resource's schema,
// with the CRD's rules as validators.
func UpdateResourceAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Optional:            true,
		MarkdownDescription: updateDescription,
		Attributes: map[string]rschema.Attribute{
			"mode": rschema.StringAttribute{
				Optional: true,
				MarkdownDescription: "`spec.update.mode`: `AutoPatch` (patch versions install on their own, DP's default), " +
					"`Auto` (every version) or `Manual` (each update is approved).",
				Validators: []validator.String{stringvalidator.OneOf(UpdateModes...)},
			},
			"windows": rschema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "`spec.update.windows`: when updates may be installed. Every time is UTC.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"from": rschema.StringAttribute{
						Required: true, MarkdownDescription: "Start, `H:MM` or `HH:MM` in UTC.",
						Validators: []validator.String{windowTimeValidator()},
					},
					"to": rschema.StringAttribute{
						Required: true, MarkdownDescription: "End, `H:MM` or `HH:MM` in UTC.",
						Validators: []validator.String{windowTimeValidator()},
					},
					"days": rschema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Days of the window: `Mon`, `Tue`, `Wed`, `Thu`, `Fri`, `Sat`, `Sun`. Every day when omitted.",
						Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(WindowDays...))},
					},
				}},
			},
			"block_on_alerts": rschema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "`spec.update.blockOnAlerts`: hold updates while the cluster has alerts.",
				Attributes: map[string]rschema.Attribute{
					"enabled": rschema.BoolAttribute{Optional: true, MarkdownDescription: "Whether alerts hold updates."},
					"severity": rschema.Int64Attribute{
						Optional: true,
						MarkdownDescription: fmt.Sprintf("Alerts of this severity or more severe (a lower number) hold updates: "+
							"%d to %d. Omitted, DP's default %d applies.", MinSeverity, MaxSeverity, DefaultSeverity),
						Validators: []validator.Int64{int64validator.Between(MinSeverity, MaxSeverity)},
					},
				},
			},
		},
	}
}

// ResourceRequestsResourceAttribute is the resource_requests attribute of
// the resource's schema, with the CRD's per-field rules as validators (the
// rules across entries are ValidateResourceRequests).
func ResourceRequestsResourceAttribute() rschema.ListNestedAttribute {
	quantities := func(desc string) rschema.MapAttribute {
		return rschema.MapAttribute{
			Optional: true, ElementType: types.StringType, MarkdownDescription: desc,
			Validators: []validator.Map{mapvalidator.ValueStringsAre(quantityValidator{})},
		}
	}
	return rschema.ListNestedAttribute{
		Optional:            true,
		MarkdownDescription: resourceRequestsDescription,
		NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
			"kind": rschema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Kind of the workload: " + strings.Join(WorkloadKinds, ", ") + ".",
				Validators:          []validator.String{stringvalidator.OneOf(WorkloadKinds...)},
			},
			"name": rschema.StringAttribute{
				Required: true, MarkdownDescription: "Name of the workload, as the package names it.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"replicas": rschema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Replicas, 0 or more; only for " + strings.Join(ReplicaKinds, ", ") +
					". Omitted, the package's number applies.",
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"containers": rschema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Resources of the workload's containers.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"name": rschema.StringAttribute{
						Required: true, MarkdownDescription: "Name of the container.",
						Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
					},
					"resources": rschema.SingleNestedAttribute{
						Optional:            true,
						MarkdownDescription: "The container's resources (Kubernetes `ResourceRequirements`), quantities such as `500m` or `128Mi`.",
						Attributes: map[string]rschema.Attribute{
							"limits":   quantities("Limits by resource name, for example `cpu`, `memory`."),
							"requests": quantities("Requests by resource name."),
						},
					},
				}},
			},
		}},
	}
}

// computedOf is a resource schema attribute as a computed data source one,
// with the same descriptions.
func computedOf(a rschema.Attribute) dschema.Attribute {
	desc := a.GetMarkdownDescription()
	nested := func(as map[string]rschema.Attribute) map[string]dschema.Attribute {
		out := make(map[string]dschema.Attribute, len(as))
		for n, c := range as {
			out[n] = computedOf(c)
		}
		return out
	}
	switch a := a.(type) {
	case rschema.SingleNestedAttribute:
		return dschema.SingleNestedAttribute{Computed: true, MarkdownDescription: desc, Attributes: nested(a.Attributes)}
	case rschema.ListNestedAttribute:
		return dschema.ListNestedAttribute{Computed: true, MarkdownDescription: desc,
			NestedObject: dschema.NestedAttributeObject{Attributes: nested(a.NestedObject.Attributes)}}
	case rschema.ListAttribute:
		return dschema.ListAttribute{Computed: true, MarkdownDescription: desc, ElementType: a.ElementType}
	case rschema.MapAttribute:
		return dschema.MapAttribute{Computed: true, MarkdownDescription: desc, ElementType: a.ElementType}
	case rschema.Int64Attribute:
		return dschema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	case rschema.BoolAttribute:
		return dschema.BoolAttribute{Computed: true, MarkdownDescription: desc}
	default:
		return dschema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
}

// UpdateType and ResourceRequestsType are the value types of the two
// attributes.
var (
	UpdateType           = UpdateResourceAttribute().GetType()
	ResourceRequestsType = ResourceRequestsResourceAttribute().GetType()
)

// SpecField is one field of an Application's spec as every schema shows
// it: the resource (whose table adds what it does with the field), the
// data sources and the ephemeral resource (which show the object as it is).
// Adding a spec field to the provider is one entry of SpecFields, one field
// of the resource's model and the docs; every schema, apply body and read
// derives from here.
type SpecField struct {
	// Attr is the Terraform attribute name.
	Attr string
	// JSON is the field's name under spec.
	JSON string
	// Type is the attribute's value type.
	Type attr.Type
	// Description says what the field is, in every schema.
	Description string
	// Listed: the items of deckhouse_applications carry it too.
	Listed bool
	// resource is the resource's schema attribute of a typed field, with
	// DP's CRD rules as validators; nil: an optional string.
	resource func() rschema.Attribute
}

// The typed spec fields.
var (
	// UpdateField is spec.update.
	UpdateField = SpecField{Attr: "update", JSON: "update", Type: UpdateType, Description: updateDescription, Listed: true,
		resource: func() rschema.Attribute { return UpdateResourceAttribute() }}
	// ResourceRequestsField is spec.resourceRequests.
	ResourceRequestsField = SpecField{Attr: "resource_requests", JSON: "resourceRequests", Type: ResourceRequestsType,
		Description: resourceRequestsDescription, Listed: true,
		resource: func() rschema.Attribute { return ResourceRequestsResourceAttribute() }}
)

// SpecFields are the fields of an Application's spec the provider shows,
// all but spec.settings (whose values may be secrets, so each place treats
// it on its own), in the order of DP's CRD.
var SpecFields = []SpecField{
	{Attr: "package_name", JSON: "packageName", Type: types.StringType, Listed: true,
		Description: "Name of the ApplicationPackage (`spec.packageName`)."},
	{Attr: "package_version", JSON: "packageVersion", Type: types.StringType, Listed: true,
		Description: "Version of the package (`spec.packageVersion`), for example `v1.0.0`."},
	{Attr: "package_repository_name", JSON: "packageRepositoryName", Type: types.StringType, Listed: true,
		Description: "PackageRepository the version comes from (`spec.packageRepositoryName`)."},
	{Attr: "release_channel", JSON: "releaseChannel", Type: types.StringType,
		Description: "Release channel (`spec.releaseChannel`)."},
	{Attr: "maintenance", JSON: "maintenance", Type: types.StringType,
		Description: "Maintenance mode (`spec.maintenance`): `NoResourceReconciliation`."},
	UpdateField,
	ResourceRequestsField,
}

// SpecFieldOf is the spec field of Terraform attribute name, nil when it is
// none.
func SpecFieldOf(name string) *SpecField {
	for i := range SpecFields {
		if SpecFields[i].Attr == name {
			return &SpecFields[i]
		}
	}
	return nil
}

// ResourceAttribute is the field's attribute of the resource's schema
// before the resource's own facts (plan modifiers, what a change does).
func (f SpecField) ResourceAttribute() rschema.Attribute {
	if f.resource != nil {
		return f.resource()
	}
	return rschema.StringAttribute{Optional: true, MarkdownDescription: f.Description}
}

// DataSourceAttribute is the field's attribute of the data sources' schemas:
// the resource's, computed.
func (f SpecField) DataSourceAttribute() dschema.Attribute {
	if f.resource == nil {
		return dschema.StringAttribute{Computed: true, MarkdownDescription: f.Description + " Null when not set."}
	}
	return computedOf(f.ResourceAttribute())
}

// Null is the field's null value.
func (f SpecField) Null() attr.Value { return nullOf(f.Type) }

// Read is the field of obj's spec as a value, null when absent, as DP
// holds it (the data sources show the object as it is).
func (f SpecField) Read(obj *unstructured.Unstructured) attr.Value {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", f.JSON)
	if !ok {
		return f.Null()
	}
	return fromJSON(f.Type, v, nil, f.JSON, false)
}

// FromJSON is the field as a value from v, the part of it the resource's
// refresh reads (the ownership projection's; nil: absent), over prior, the
// value the state held: a field that holds the CRD's default reads as null
// unless prior holds a value there, so a field the configuration omits (and
// an import or a move, which have no configuration) shows no drift for what
// the API server filled in.
func (f SpecField) FromJSON(v any, prior attr.Value) attr.Value {
	if v == nil {
		return f.Null()
	}
	return fromJSON(f.Type, v, prior, f.JSON, true)
}

// JSONOf is a known value in the JSON data model, as an apply body holds it
// (null attributes of an object left out).
func JSONOf(v attr.Value) any { return toJSON(v) }

// Body is the value in the JSON data model of an apply body, and whether
// there is one (a null or unknown value is not written).
func (f SpecField) Body(v attr.Value) (any, bool) {
	if v == nil || v.IsNull() || v.IsUnknown() {
		return nil, false
	}
	return toJSON(v), true
}

// fromJSON converts v, a value in the JSON data model, to a value of type t.
// A value of the wrong shape counts as absent (null).
func fromJSON(t attr.Type, v any, prior attr.Value, at string, keepDefaultsNull bool) attr.Value {
	if prior == nil || prior.IsNull() || prior.IsUnknown() {
		if d, ok := crdDefaults[at]; ok && keepDefaultsNull && jsonvalue.Equal(d, v) {
			return nullOf(t)
		}
		prior = nil
	}
	if v == nil {
		return nullOf(t)
	}
	switch t := t.(type) {
	case types.ObjectType:
		return objectFromJSON(t, v, prior, at, keepDefaultsNull)
	case types.ListType:
		return listFromJSON(t, v, prior, at, keepDefaultsNull)
	case types.MapType:
		m, ok := v.(map[string]any)
		if !ok {
			return nullOf(t)
		}
		elems := make(map[string]attr.Value, len(m))
		for k, e := range m {
			elems[k] = fromJSON(t.ElemType, e, nil, at, keepDefaultsNull)
		}
		return types.MapValueMust(t.ElemType, elems)
	}
	return scalarFromJSON(t, v)
}

// objectFromJSON is fromJSON of an object: each attribute from DP's name.
func objectFromJSON(t types.ObjectType, v any, prior attr.Value, at string, keepDefaultsNull bool) attr.Value {
	m, ok := v.(map[string]any)
	if !ok {
		return nullOf(t)
	}
	var priorAttrs map[string]attr.Value
	if p, ok := prior.(types.Object); ok {
		priorAttrs = p.Attributes()
	}
	attrs := make(map[string]attr.Value, len(t.AttrTypes))
	for name, at2 := range t.AttrTypes {
		key := jsonName(name)
		var pv attr.Value // nil: no prior value, nothing to keep null
		if priorAttrs != nil {
			pv = priorAttrs[name]
		}
		attrs[name] = fromJSON(at2, m[key], pv, at+"."+key, keepDefaultsNull)
	}
	return types.ObjectValueMust(t.AttrTypes, attrs)
}

// listFromJSON is fromJSON of a list: each element over the prior's
// element of the same index.
func listFromJSON(t types.ListType, v any, prior attr.Value, at string, keepDefaultsNull bool) attr.Value {
	l, ok := v.([]any)
	if !ok {
		return nullOf(t)
	}
	var priorElems []attr.Value
	if p, ok := prior.(types.List); ok {
		priorElems = p.Elements()
	}
	elems := make([]attr.Value, len(l))
	for i, e := range l {
		var pv attr.Value
		if i < len(priorElems) {
			pv = priorElems[i]
		}
		elems[i] = fromJSON(t.ElemType, e, pv, at, keepDefaultsNull)
	}
	return types.ListValueMust(t.ElemType, elems)
}

// scalarFromJSON is fromJSON of a string, integer or bool.
func scalarFromJSON(t attr.Type, v any) attr.Value {
	switch t {
	case types.StringType:
		switch s := v.(type) {
		case string:
			return types.StringValue(s)
		case int64, float64, int:
			// An int-or-string quantity written as a number.
			return types.StringValue(numberText(s))
		}
	case types.Int64Type:
		if n := integer(v); n != nil {
			return types.Int64Value(*n)
		}
	case types.BoolType:
		if b, ok := v.(bool); ok {
			return types.BoolValue(b)
		}
	}
	return nullOf(t)
}

// toJSON converts a known value to the JSON data model; null attributes of
// an object are left out.
func toJSON(v attr.Value) any {
	switch v := v.(type) {
	case types.Object:
		out := map[string]any{}
		for name, a := range v.Attributes() {
			if a.IsNull() || a.IsUnknown() {
				continue
			}
			out[jsonName(name)] = toJSON(a)
		}
		return out
	case types.List:
		out := make([]any, 0, len(v.Elements()))
		for _, e := range v.Elements() {
			out = append(out, toJSON(e))
		}
		return out
	case types.Map:
		out := make(map[string]any, len(v.Elements()))
		for k, e := range v.Elements() {
			out[k] = toJSON(e)
		}
		return out
	case types.String:
		return v.ValueString()
	case types.Int64:
		return v.ValueInt64()
	case types.Bool:
		return v.ValueBool()
	}
	return nil
}

// jsonName is DP's name of a Terraform attribute name: snake case to
// lower camel case.
func jsonName(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// nullOf is the null value of t.
func nullOf(t attr.Type) attr.Value {
	ctx := context.Background()
	v, err := t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), nil))
	if err != nil {
		panic(fmt.Sprintf("null of %s: %v", t, err))
	}
	return v
}

func numberText(v any) string {
	switch n := v.(type) {
	case int64:
		return strconv.FormatInt(n, 10)
	case int:
		return strconv.Itoa(n)
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return ""
}

// ValidateResourceRequests checks the rules of spec.resourceRequests that
// span its fields, as DP's CRD does: kind + name identify an entry (the
// list-map keys), and replicas is allowed only for the kinds of
// ReplicaKinds. Diagnostics name the attribute path below at.
func ValidateResourceRequests(ctx context.Context, l types.List, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	if l.IsNull() || l.IsUnknown() {
		return diags
	}
	type entry struct {
		Kind       types.String `tfsdk:"kind"`
		Name       types.String `tfsdk:"name"`
		Replicas   types.Int64  `tfsdk:"replicas"`
		Containers types.List   `tfsdk:"containers"`
	}
	seen := map[string]int{}
	for i, e := range l.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		var en entry
		if d := o.As(ctx, &en, basetypes.ObjectAsOptions{}); d.HasError() {
			continue
		}
		if en.Kind.IsUnknown() || en.Name.IsUnknown() || en.Kind.IsNull() || en.Name.IsNull() {
			continue
		}
		kind, name := en.Kind.ValueString(), en.Name.ValueString()
		key := kind + "/" + name
		if first, dup := seen[key]; dup {
			diags.AddAttributeError(at.AtListIndex(i), "Duplicate resource request",
				fmt.Sprintf("%s[%d] and %s[%d] both set kind %q and name %q: DP's Application CRD keys the list by kind and name, so each pair may appear once.",
					at, first, at, i, kind, name))
		} else {
			seen[key] = i
		}
		// A kind outside the enum is its validator's to report.
		if !en.Replicas.IsNull() && slices.Contains(WorkloadKinds, kind) && !slices.Contains(ReplicaKinds, kind) {
			diags.AddAttributeError(at.AtListIndex(i).AtName("replicas"), "Replicas not allowed for this kind",
				fmt.Sprintf("%s[%d] is a %s: DP's Application CRD allows replicas only for %s.", at, i, kind, strings.Join(ReplicaKinds, ", ")))
		}
	}
	return diags
}

// windowTimeValidator checks the CRD's pattern of a window's from and to.
func windowTimeValidator() validator.String {
	return stringvalidator.RegexMatches(WindowTime, "must be a UTC time H:MM or HH:MM (00:00 to 23:59), DP's pattern "+WindowTime.String())
}

// quantityValidator checks a Kubernetes resource quantity (500m, 128Mi, 2).
type quantityValidator struct{}

func (quantityValidator) Description(context.Context) string {
	return "a Kubernetes quantity such as 500m, 2, 128Mi or 1Gi"
}

func (v quantityValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (quantityValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := resource.ParseQuantity(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid quantity",
			fmt.Sprintf("%s: %q is not a Kubernetes quantity (for example 500m, 2, 128Mi or 1Gi): %v.", req.Path, req.ConfigValue.ValueString(), err))
	}
}
