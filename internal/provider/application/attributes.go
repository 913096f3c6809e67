package application

import (
	"context"
	"reflect"
	"sort"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// The table of attribute facts: everything the resource's code needs to
// know of each attribute of deckhouse_application is said here once. The
// schema is built from it; sameModel, specChanged, copyComputed, createFills, deleteReads, the defaults of an import, a
// list result and a move, the plain spec fields of the apply body, the
// refresh of every attribute the Application holds (readProjected, by field
// ownership) and what ReadUnchanged needs derive from it; the tests in
// attributes_test.go walk the schema and the model and fail for each place
// a new attribute is missing from.
//
// The fields of an Application's spec are appstatus.SpecFields, which the
// data sources and the ephemeral resource share: adding one touches its
// entry there, its field in applicationModel and the docs; an entry here
// only when the resource has facts of its own about it (required, plan
// modifiers, validators). Adding another attribute touches its entry here,
// its field in applicationModel and, unless it is a map of strings of the
// metadata, the code that writes (writebody.go) or reads it (read.go).

// dpPlace is where DP sees an attribute.
type dpPlace int

const (
	// dpNeither: the provider's own argument or a value it computes.
	dpNeither dpPlace = iota
	// dpSpec: a field of the Application's spec.
	dpSpec
	// dpMetadata: the Application's metadata (name, namespace, labels,
	// annotations).
	dpMetadata
)

// changeKind is what a change of the attribute between the prior state
// and the plan does.
type changeKind int

const (
	// changeNone: recorded in the state, nothing is written.
	changeNone changeKind = iota
	// changeSpec: the plan runs DP's checks again and the apply writes the
	// Application (specChanged).
	changeSpec
	// changeMetadata: the apply writes the Application's metadata again
	// without DP's checks.
	changeMetadata
	// changeRewrite: the apply writes the Application again although DP
	// sees no change (a new field manager or conflict mode).
	changeRewrite
)

// manifestCarry is how a kubernetes_manifest's state carries an attribute
// to a move (moved_state.go).
type manifestCarry int

const (
	// manifestNotCarried: a kubernetes_manifest has no such thing: the
	// attribute's default, else null.
	manifestNotCarried manifestCarry = iota
	// manifestRead: read from the manifest's object as a refresh reads the
	// cluster's.
	manifestRead
	// manifestNull: in the object but not moved: null until the next
	// refresh (settings may hold secrets; status is the refresh's).
	manifestNull
)

// attribute is the facts of one attribute.
type attribute struct {
	schema schema.Attribute // nil for a block
	block  schema.Block
	dp     dpPlace
	change changeKind
	// spec is the field of spec the attribute is (appstatus.SpecFields,
	// set by withSpecFields), which applyConfiguration writes and fromObject
	// reads without code of its own.
	spec *appstatus.SpecField
	// at is where an attribute of another shape is in the Application
	// (settings, labels, annotations); with spec it is the place a refresh
	// reads through the ownership projection (readProjected), one rule for
	// all.
	at []string
	// skip are keys of a map attribute that are never read back (the
	// provider's own annotations).
	skip map[string]bool
	// refresh: a refresh fills it from the Application (fromObject).
	refresh bool
	// deleteReads: Delete reads it of the state (it decodes only these).
	deleteReads bool
	// secret: it may hold values of spec.settings, so an import, a list
	// result and a move leave it null (unless import_settings = "read").
	secret bool
	// manifest: how a kubernetes_manifest carries it.
	manifest manifestCarry
	// readUnchanged: ReadUnchanged reads it of the state's top-level
	// strings (the identity, and field_manager, whose null means the
	// provider's, by which a refresh decides what it owns).
	readUnchanged bool
}

// attributes is the table, by attribute name.
var attributes = withSpecFields(map[string]attribute{
	"id": {
		schema: schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "`<namespace>/<name>`.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		refresh: true, manifest: manifestRead,
	},
	"name": {
		schema: schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "Name of the Application: a DNS-1123 label (lower case letters, digits and `-`) of at most 24 characters. Changing it replaces the Application.",
			Validators:          []validator.String{applicationNameValidator{}},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		dp: dpMetadata, change: changeSpec, refresh: true, deleteReads: true, manifest: manifestRead, readUnchanged: true,
	},
	"namespace": {
		schema: schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "Namespace (project) of the Application. Changing it replaces the Application.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		dp: dpMetadata, change: changeSpec, refresh: true, deleteReads: true, manifest: manifestRead, readUnchanged: true,
	},
	"package_name": {
		schema: schema.StringAttribute{
			Required:            true,
			MarkdownDescription: specDescription("package_name") + " Changing it replaces the Application.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
	},
	"package_version": {
		schema: schema.StringAttribute{
			Required:            true,
			MarkdownDescription: specDescription("package_version") + " Changing it upgrades in place.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
	},
	"package_repository_name": {
		schema: schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: specDescription("package_repository_name") + " When omitted and " +
				"exactly one repository offers the package (`ApplicationPackage.status.availableRepositories`), that one " +
				"is used and shown in the plan; otherwise the plan fails listing the choices.",
		},
	},
	"maintenance": {
		schema: schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: specDescription("maintenance"),
			Validators:          []validator.String{stringvalidator.OneOf("NoResourceReconciliation")},
		},
	},
	"resource_requests": {
		schema: func() schema.ListNestedAttribute {
			a := appstatus.ResourceRequestsResourceAttribute()
			a.MarkdownDescription += " DP applies it only when its controller runs with the feature gate " +
				"`DECKHOUSE_ENABLE_RESOURCE_REQUESTS=true`; otherwise DP stores it and the package's own values apply."
			return a
		}(),
	},
	"labels": {
		schema: schema.MapAttribute{
			Optional:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Labels of the Application object. Labels added by others are not managed.",
		},
		dp: dpMetadata, change: changeMetadata, at: []string{"metadata", "labels"}, refresh: true, manifest: manifestRead,
	},
	"annotations": {
		schema: schema.MapAttribute{
			Optional:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Annotations of the Application object. Annotations added by others are not managed.",
		},
		dp: dpMetadata, change: changeMetadata, at: []string{"metadata", "annotations"}, refresh: true, manifest: manifestRead,
		skip: map[string]bool{
			allowDestructiveSwitchAnnotation:                   true,
			"kubectl.kubernetes.io/last-applied-configuration": true,
		},
	},
	"settings": {
		schema: schema.DynamicAttribute{
			Optional: true,
			MarkdownDescription: "Settings of the application (`spec.settings`), an object validated at plan against the " +
				"settings schema published in the ApplicationPackageVersion.",
		},
		dp: dpSpec, change: changeSpec, at: settingsPath, refresh: true, secret: true, manifest: manifestNull,
	},
	"sensitive_settings": {
		schema: schema.DynamicAttribute{
			Optional:  true,
			WriteOnly: true,
			MarkdownDescription: "Secret settings, deep-merged into `spec.settings` at apply and validated at plan together " +
				"with `settings`. Write-only: never stored in the plan or the state and never reported as drift. " +
				"Change `sensitive_settings_version` to write new values. Requires Terraform or OpenTofu 1.11 or later.",
		},
		dp: dpSpec,
	},
	"sensitive_settings_version": {
		schema: schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Any value; changing it writes `sensitive_settings` again.",
		},
		change: changeSpec,
	},
	"immutable_field_change": {
		schema: schema.StringAttribute{
			Optional: true,
			Computed: true,
			Default:  stringdefault.StaticString(immutableModeError),
			MarkdownDescription: "What a change of an `x-deckhouse-immutable` field does: `error` (default, as DP's webhook: " +
				"the plan fails naming each field) or `replace` (the plan replaces the Application, naming the field).",
			Validators: []validator.String{stringvalidator.OneOf(immutableModeError, immutableModeReplace)},
		},
	},
	"settings_checks": {schema: settingsChecksAttribute()},
	"allow_destructive_settings_switch": {
		schema: schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(false),
			MarkdownDescription: "Acknowledges a settings switch with `impact: destructive` " +
				"(`x-deckhouse-enum-switch-settings`). When true, apply writes the annotation " +
				"`" + allowDestructiveSwitchAnnotation + ": \"true\"`.",
		},
		dp: dpMetadata, change: changeSpec,
	},
	"wait": {
		schema: schema.BoolAttribute{
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
			MarkdownDescription: "Wait after create and update until DP has applied the settings " +
				"(condition `ConfigurationApplied` for the new generation), and after delete until the object is gone.",
		},
		deleteReads: true,
	},
	"wait_for": {
		schema: schema.StringAttribute{
			Optional: true,
			Computed: true,
			Default:  stringdefault.StaticString(dpclient.ConditionConfigurationApplied),
			MarkdownDescription: "The condition a wait ends on: `ConfigurationApplied` (default: DP applied the settings of " +
				"the new generation) or `Ready` (also the application's `Ready` condition, for resources that use the " +
				"application right after).",
			Validators: []validator.String{stringvalidator.OneOf(dpclient.ConditionConfigurationApplied, dpclient.ConditionReady)},
		},
	},
	"field_manager": {
		schema: schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Field manager of the server-side apply of this Application. Default: the provider's `field_manager`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		// deleteReads: the redaction of DP's texts in a delete that times
		// out tells this manager's settings from other managers'.
		change: changeRewrite, readUnchanged: true, deleteReads: true,
	},
	"force_conflicts": {
		schema: schema.BoolAttribute{
			Optional:            true,
			MarkdownDescription: "Take over fields that other field managers own. Default: the provider's `force_conflicts`.",
		},
		change: changeRewrite,
	},
	"timeouts": {
		block: timeouts.Block(context.Background(), timeouts.Opts{
			Create: true, Update: true, Delete: true,
			CreateDescription: "How long a create may take, including the wait for DP: a Go duration such as `30s`, `10m` or `1h`. Default `15m`.",
			UpdateDescription: "How long an update may take, including the wait for DP. Default `15m`.",
			DeleteDescription: "How long a delete may take, including the wait until the Application is gone. Default `10m`.",
		}),
		deleteReads: true,
	},
	"effective_settings": {
		schema: schema.StringAttribute{
			Computed: true,
			MarkdownDescription: appstatus.EffectiveSettingsDescription + " Here one compact JSON document (keys sorted; " +
				"read it with `jsondecode()`; plans show its changes key by key), computed at plan from `settings` " +
				"(unknown when `settings` holds a value known only at apply, or the package version cannot be read at plan), " +
				"with the project defaults DP will inject; " +
				"values of `sensitive_settings` are not included. After an import, DP's record when DP has " +
				"applied the current generation, else null until the first apply.",
		},
		refresh: true, secret: true, manifest: manifestNull,
	},
	"status": {
		schema:  appstatus.ResourceAttribute(),
		refresh: true, manifest: manifestNull,
	},
	"last_applied_settings": {
		schema: schema.StringAttribute{
			Computed: true,
			MarkdownDescription: appstatus.LastAppliedSettingsDescription + " Here a JSON document as `effective_settings`, without the paths supplied by " +
				"`sensitive_settings` or owned by other field managers, and null when it equals `effective_settings` " +
				"(the state holds that document once): null beside a non-null `effective_settings` means DP applied " +
				"exactly the effective settings.",
		},
		refresh: true, secret: true, manifest: manifestNull,
	},
})

// withSpecFields completes the table with the fields of an Application's
// spec (appstatus.SpecFields), which every schema shares: DP sees each in
// spec, a change of it reruns DP's checks, a refresh and a move read it.
// An entry above holds only the resource's own facts of a field (whether it
// is required, its plan modifiers and validators); a field without one is
// an optional argument with appstatus's schema.
func withSpecFields(table map[string]attribute) map[string]attribute {
	for i := range appstatus.SpecFields {
		f := &appstatus.SpecFields[i]
		a, ok := table[f.Attr]
		if !ok {
			a.schema = f.ResourceAttribute()
		}
		a.spec, a.dp, a.change, a.refresh, a.manifest = f, dpSpec, changeSpec, true, manifestRead
		table[f.Attr] = a
	}
	return table
}

// specDescription is what spec field name is, as every schema says it.
func specDescription(name string) string { return appstatus.SpecFieldOf(name).Description }

// attributeNames are the names of the table, sorted.
var attributeNames = func() []string {
	names := make([]string, 0, len(attributes))
	for n := range attributes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}()

// namesWhere are the attribute names whose facts satisfy keep, sorted.
func namesWhere(keep func(attribute) bool) []string {
	var out []string
	for _, n := range attributeNames {
		if keep(attributes[n]) {
			out = append(out, n)
		}
	}
	return out
}

// schemaAttributes and schemaBlocks are the schema's attributes and blocks.
func schemaAttributes() (map[string]schema.Attribute, map[string]schema.Block) {
	attrs, blocks := map[string]schema.Attribute{}, map[string]schema.Block{}
	for n, a := range attributes {
		if a.block != nil {
			blocks[n] = a.block
		} else {
			attrs[n] = a.schema
		}
	}
	return attrs, blocks
}

// attrType is the value type of the attribute or block.
func (a attribute) attrType() attr.Type {
	if a.block != nil {
		return a.block.Type()
	}
	return a.schema.GetType()
}

// computed reports whether the schema computes the attribute.
func (a attribute) computed() bool { return a.schema != nil && a.schema.IsComputed() }

// defaultValue is the attribute's schema default, nil when it has none.
func (a attribute) defaultValue() attr.Value {
	ctx := context.Background()
	switch s := a.schema.(type) {
	case schema.StringAttribute:
		if s.Default != nil {
			var resp defaults.StringResponse
			s.Default.DefaultString(ctx, defaults.StringRequest{}, &resp)
			return resp.PlanValue
		}
	case schema.BoolAttribute:
		if s.Default != nil {
			var resp defaults.BoolResponse
			s.Default.DefaultBool(ctx, defaults.BoolRequest{}, &resp)
			return resp.PlanValue
		}
	}
	return nil
}

// createFills are the attributes a create may change in the planned model
// (prepareWrite and written): those the schema computes without a
// default. The others are recorded as planned.
var createFills = namesWhere(func(a attribute) bool { return a.computed() && a.defaultValue() == nil })

// deleteReads are the attributes a delete reads of the state.
var deleteReads = namesWhere(func(a attribute) bool { return a.deleteReads })

// readUnchangedReads are the attributes ReadUnchanged reads of the state.
var readUnchangedReads = namesWhere(func(a attribute) bool { return a.readUnchanged })

// modelFields maps each attribute name to its field of applicationModel.
var modelFields = sync.OnceValue(func() map[string]int {
	t := reflect.TypeFor[applicationModel]()
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		out[t.Field(i).Tag.Get("tfsdk")] = i
	}
	return out
})

// field is the field of attribute name in m, and whether there is one. A
// name without a field is an attribute missing from applicationModel,
// which TestAttributeFacts_CoverTheSchema names: get reads it as null and
// set drops it, so the gap shows as that test's failure (and the
// framework's diagnostic for a model that does not match the schema), not
// as a panic.
func (m *applicationModel) field(name string) (reflect.Value, bool) {
	i, ok := modelFields()[name]
	if !ok {
		return reflect.Value{}, false
	}
	return reflect.ValueOf(m).Elem().Field(i), true
}

// get is the value of attribute name in m.
func (m *applicationModel) get(name string) attr.Value {
	f, ok := m.field(name)
	if !ok {
		return nullValue(attributes[name].attrType())
	}
	v, ok := f.Interface().(attr.Value)
	if !ok {
		panic("applicationModel field of " + name + " is not a framework value")
	}
	return v
}

// set sets attribute name of m to v, a value of its type.
func (m *applicationModel) set(name string, v attr.Value) {
	if f, ok := m.field(name); ok {
		f.Set(reflect.ValueOf(v))
	}
}

// nullValue is the null value of t.
func nullValue(t attr.Type) attr.Value {
	ctx := context.Background()
	v, err := t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), nil))
	if err != nil {
		panic("null value of " + t.String() + ": " + err.Error())
	}
	return v
}

// changed reports whether an attribute whose change is one of kinds
// differs between plan and state.
func changed(plan, state *applicationModel, kinds ...changeKind) bool {
	for _, n := range attributeNames {
		a := attributes[n]
		for _, k := range kinds {
			if a.change == k && !plan.get(n).Equal(state.get(n)) {
				return true
			}
		}
	}
	return false
}

// specChanged reports whether anything DP sees changed between plan and
// state (or a write it does not see that reruns its checks).
func specChanged(plan, state *applicationModel) bool { return changed(plan, state, changeSpec) }

// sameModel reports whether two models hold equal values in every attribute.
func sameModel(a, b *applicationModel) bool {
	for _, n := range attributeNames {
		if !a.get(n).Equal(b.get(n)) {
			return false
		}
	}
	return true
}

// copyComputed keeps the computed values of the state in the plan: those
// the schema computes alone always, and optional ones without a default
// when the plan leaves them unknown.
func copyComputed(plan, state *applicationModel) {
	for _, n := range createFills { // the computed attributes without a default
		if !attributes[n].schema.IsOptional() || plan.get(n).IsUnknown() {
			plan.set(n, state.get(n))
		}
	}
}

// importedModel is the model of an Application just imported (or listed,
// or moved) by namespace and name: the id and identity set, the arguments
// with defaults at their defaults, the rest null, for fromObject to fill.
func importedModel(namespace, name string) applicationModel {
	var m applicationModel
	for _, n := range attributeNames {
		a := attributes[n]
		v := a.defaultValue()
		if v == nil {
			v = nullValue(a.attrType())
		}
		m.set(n, v)
	}
	m.ID = types.StringValue(namespace + "/" + name)
	m.Name = types.StringValue(name)
	m.Namespace = types.StringValue(namespace)
	return m
}

// setDefaults gives the attributes with a default that m holds null their
// default (a state imported before an attribute had one).
func setDefaults(m *applicationModel) {
	for _, n := range attributeNames {
		if v := attributes[n].defaultValue(); v != nil && m.get(n).IsNull() {
			m.set(n, v)
		}
	}
}

// withoutSecrets sets the attributes that may hold values of spec.settings
// to null.
func withoutSecrets(m *applicationModel) {
	for _, n := range attributeNames {
		if a := attributes[n]; a.secret {
			m.set(n, nullValue(a.attrType()))
		}
	}
}

// writeSpecFields sets the plain and typed spec fields of plan in spec, the
// apply body's spec: a null (or empty string) value is not written, so DP's
// own fallback applies.
func writeSpecFields(plan *applicationModel, spec map[string]any) {
	for _, n := range attributeNames {
		a := attributes[n]
		if a.spec == nil {
			continue
		}
		if v, ok := a.spec.Body(plan.get(n)); ok && v != "" {
			spec[a.spec.JSON] = v
		}
	}
}

// place is where the attribute is in the Application (nil: it is not
// read back from one place of it).
func (a attribute) place() []string {
	if a.spec != nil {
		return []string{"spec", a.spec.JSON}
	}
	return a.at
}

// projected are the attribute names read back through the projection.
var projected = namesWhere(func(a attribute) bool { return a.place() != nil })

// readBack is what readProjected found besides the attributes it set.
type readBack struct {
	settings        any        // the settings as projected, in the JSON data model
	hasSettings     bool       // false: the state holds none of them
	settingsLeftOut [][]string // the settings paths left out of the state
	named           namedFields
}

// readProjected refreshes every attribute the table places in the
// Application from obj, through the one projection of ownership.go, over
// the values m holds (the prior state's). whole reads the spec whole (an
// import before its first apply). The settings are returned projected, for
// fromObject to take the sensitive paths out.
func readProjected(m *applicationModel, obj *unstructured.Unstructured, own owners, whole bool) (back readBack) {
	for _, n := range projected {
		a := attributes[n]
		prior, set := priorJSON(m.get(n))
		var p projection
		var v any
		var present bool
		if (whole || !own.applied) && a.dp == dpSpec {
			v, present, _ = unstructured.NestedFieldCopy(obj.Object, a.place()...)
		} else {
			v, present = p.project(obj.Object, own, a.place(), prior, set)
		}
		back.named.add(n, a, p)
		switch {
		case a.spec != nil && a.spec.Type == types.StringType:
			s, _ := v.(string)
			if priorS, ok := m.get(n).(types.String); ok && a.schema.IsOptional() && !a.schema.IsComputed() {
				m.set(n, optionalString(s, priorS))
			} else {
				m.set(n, types.StringValue(s))
			}
		case a.spec != nil:
			if !present {
				v = nil
			}
			m.set(n, a.spec.FromJSON(v, m.get(n)))
		case n == "settings":
			back.settings, back.hasSettings, back.settingsLeftOut = v, present, pathsOf(p.leftOut)
		default: // a map of strings: labels, annotations
			m.set(n, stringMapValue(v, m.get(n), a.skip))
		}
	}
	return back
}

// priorJSON is what the prior state holds of an attribute, in the JSON
// data model, and whether it holds anything (null, unknown and "" are
// nothing).
func priorJSON(v attr.Value) (any, bool) {
	if v == nil || v.IsNull() || v.IsUnknown() {
		return nil, false
	}
	switch v := v.(type) {
	case types.String:
		return v.ValueString(), v.ValueString() != ""
	case types.Dynamic:
		doc, _, err := convert.FromDynamic(v)
		return doc, err == nil && doc != nil
	}
	return appstatus.JSONOf(v), true
}

// stringMapValue is a projected map of strings as a value over prior,
// without the keys of skip: null when empty and prior was null.
func stringMapValue(v any, prior attr.Value, skip map[string]bool) types.Map {
	m, _ := v.(map[string]any)
	elems := map[string]attr.Value{}
	for k, e := range m {
		if s, ok := e.(string); ok && !skip[k] {
			elems[k] = types.StringValue(s)
		}
	}
	if len(elems) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.MapNull(types.StringType)
	}
	return types.MapValueMust(types.StringType, elems)
}
