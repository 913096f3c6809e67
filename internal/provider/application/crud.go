package application

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// Keys of the resource's private state.
const (
	// privateSensitivePaths holds the key paths supplied by
	// sensitive_settings (paths only, never values), so Read keeps them out
	// of settings.
	privateSensitivePaths = "sensitive_paths"
	// privateApplyPending is set while DP has not applied the generation the
	// last update wrote (its wait failed or timed out): the next plan shows
	// an update that applies and waits again.
	privateApplyPending = "apply_pending"
	// privateUID is the UID of the Application, the precondition of its delete.
	privateUID = "uid"
	// privateImported marks an imported Application not written by this
	// resource yet: which of its settings are secrets is unknown until the
	// first apply, so the state holds none of them (settings,
	// last_applied_settings and effective_settings stay null).
	privateImported = "imported"
)

// privateGetter and privateSetter are the private state of requests and
// responses.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// Create writes a new Application. When the write landed but DP's verdict
// did not come (rejected, timed out, the wait failed), no state is recorded
// and the Application is left in place with the annotation
// dpclient.AnnotationPendingCreate: the next apply plans a create again, and
// that create adopts it, so a failed create never becomes a tainted resource
// that the next apply would delete and install again.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan applicationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var sensitive types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_settings"), &sensitive)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, plan.timeout(ctx, "create", defaultCreateTimeout))
	defer cancel()
	w := r.write(ctx, &plan, nil, sensitive, "create")
	resp.Diagnostics.Append(w.record(ctx, &plan, &resp.State, resp.Private, resp.Identity)...)
}

// Update writes the Application again. When DP's verdict does not come, the
// state records what was written with an error, and privateApplyPending
// makes the next plan show an update until DP has applied it.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state applicationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	var sensitive types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_settings"), &sensitive)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pending := hasPrivateKey(ctx, req.Private, privateApplyPending)
	if !pending && !specChanged(&plan, &state) && !metadataChanged(&plan, &state) &&
		plan.FieldManager.Equal(state.FieldManager) && plan.ForceConflicts.Equal(state.ForceConflicts) {
		// Only provider-side arguments (wait, timeouts, modes) changed.
		copyComputed(&plan, &state)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, plan.timeout(ctx, "update", defaultUpdateTimeout))
	defer cancel()
	w := r.write(ctx, &plan, &state, sensitive, "update")
	resp.Diagnostics.Append(w.record(ctx, &plan, &resp.State, resp.Private, resp.Identity)...)
}

// writeOutcome is what write did.
type writeOutcome struct {
	diags          diag.Diagnostics
	recorded       bool // the plan model holds the state to record
	sensitivePaths [][]string
	pending        bool // DP has not applied the written generation
	uid            string
}

func (w *writeOutcome) setPrivate(ctx context.Context, private privateSetter) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.Append(private.SetKey(ctx, privateSensitivePaths, encodePaths(w.sensitivePaths))...)
	pending := []byte(nil)
	if w.pending {
		pending = []byte(`true`)
	}
	diags.Append(private.SetKey(ctx, privateApplyPending, pending)...)
	diags.Append(private.SetKey(ctx, privateImported, nil)...)
	if w.uid != "" {
		uid, _ := json.Marshal(w.uid)
		diags.Append(private.SetKey(ctx, privateUID, uid)...)
	}
	return diags
}

// record returns a write's diagnostics and, when the write was recorded,
// stores plan as the new state, the private data and the identity.
func (w *writeOutcome) record(ctx context.Context, plan *applicationModel, state *tfsdk.State, private privateSetter, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	diags := w.diags
	if !w.recorded {
		return diags
	}
	diags.Append(state.Set(ctx, plan)...)
	diags.Append(w.setPrivate(ctx, private)...)
	if identity != nil {
		diags.Append(identity.Set(ctx, applicationIdentity{Namespace: plan.Namespace, Name: plan.Name})...)
	}
	return diags
}

func hasPrivateKey(ctx context.Context, private privateGetter, key string) bool {
	if private == nil {
		return false
	}
	b, _ := private.GetKey(ctx, key)
	return len(b) > 0
}

func privateString(ctx context.Context, private privateGetter, key string) string {
	if private == nil {
		return ""
	}
	b, _ := private.GetKey(ctx, key)
	var s string
	if len(b) > 0 && json.Unmarshal(b, &s) == nil {
		return s
	}
	return ""
}

// write runs the checks the plan left to apply, applies the Application,
// waits for DP and fills plan with the state to record.
func (r *Resource) write(ctx context.Context, plan, prior *applicationModel, sensitiveVal types.Dynamic, op string) (w writeOutcome) {
	cl := providerdata.ClusterClient(ctx, r.data, &w.diags)
	if cl == nil {
		return w
	}
	settings, _, err := convert.FromDynamic(plan.Settings)
	if err != nil {
		w.diags.AddAttributeError(path.Root("settings"), "Invalid settings", err.Error())
		return w
	}
	if settings != nil {
		if _, ok := settings.(map[string]any); !ok {
			w.diags.AddAttributeError(path.Root("settings"), "Invalid settings", "settings must be an object.")
			return w
		}
	}
	sensitive, _, err := convert.FromDynamic(sensitiveVal)
	if err != nil {
		w.diags.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object of settings.")
		return w
	}
	if sensitive != nil {
		if _, ok := sensitive.(map[string]any); !ok {
			w.diags.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object.")
			return w
		}
	}
	secrets := newRedactor(sensitive)
	defer func() { w.diags = secrets.diagnostics(w.diags) }()
	who := fmt.Sprintf("Application %s/%s", plan.Namespace.ValueString(), plan.Name.ValueString())

	// The checks the plan could not run (package version not published yet,
	// cluster unreachable, values or the provider configuration unknown at plan).
	repoUnresolved := plan.PackageRepositoryName.IsUnknown() || plan.PackageRepositoryName.IsNull()
	effectiveUnknown := !fullyKnown(ctx, plan.EffectiveSettings)
	if repoUnresolved || effectiveUnknown {
		out := r.check(ctx, cl, checkInputFromModel(plan, prior, settings, sensitive), false)
		w.diags.Append(out.diags...)
		if w.diags.HasError() {
			return w
		}
		if repoUnresolved {
			plan.PackageRepositoryName = types.StringValue(out.repository)
		}
		if effectiveUnknown {
			plan.EffectiveSettings = convert.ToDynamic(out.effective)
		}
	}

	merged := settings
	if sensitive != nil {
		merged = engine.Merge(settings, sensitive)
	}
	body := applyConfiguration(plan, merged)
	opts := dpclient.ApplyOptions{FieldManager: r.fieldManager(plan), Force: r.forceConflicts(plan), Create: op == "create"}
	obj, err := cl.Apply(ctx, body, opts)
	var we *dpclient.WriteError
	if err != nil && op == "create" && errors.As(err, &we) && we.MayHaveLanded {
		// The create may have landed: mark it so that the next apply adopts it.
		_ = cl.MarkPendingCreate(ctx, body, opts)
	}
	if err != nil {
		if at, ok := dpFieldPath(err.Error(), settings, sensitive); ok {
			w.diags.AddAttributeError(at, fmt.Sprintf("Cannot %s %s", op, who), err.Error())
		} else {
			w.diags.AddError(fmt.Sprintf("Cannot %s %s", op, who), err.Error())
		}
		return w
	}
	w.sensitivePaths = leafPaths(sensitive)
	w.uid = string(obj.GetUID())
	tflog.Debug(ctx, "applied Application", map[string]any{"namespace": obj.GetNamespace(), "name": obj.GetName(), "generation": obj.GetGeneration()})

	var waitErr error
	if plan.Wait.ValueBool() {
		obj, waitErr = cl.Wait(ctx, obj, dpclient.WaitOptions{Condition: plan.waitFor(), Redact: secrets.redact})
	}
	if op == "create" && waitErr != nil {
		marked := "It carries the annotation " + dpclient.AnnotationPendingCreate + ": the next apply adopts it and waits again (nothing is deleted)."
		if err := cl.MarkPendingCreate(ctx, body, opts); err != nil {
			marked = "It could not be marked for adoption (" + err.Error() + "): the next apply refuses it as an existing Application; import it."
		}
		w.diags.AddError(fmt.Sprintf("%s: created, but %s", who, waitSummary(waitErr)),
			waitErr.Error()+".\n\nThe Application was left in place and is not recorded in the state. "+marked+
				" To give it up, delete it from the cluster; to manage it as it is, import it.")
		return w
	}
	w.recorded = true
	plan.ID = types.StringValue(plan.Namespace.ValueString() + "/" + plan.Name.ValueString())
	if plan.Status.IsUnknown() || waitErr != nil {
		plan.Status = statusValue(obj, secrets.redact)
	}
	if plan.LastAppliedSettings.IsUnknown() {
		plan.LastAppliedSettings = lastAppliedValue(obj, withForeignPaths(obj, r.fieldManager(plan), w.sensitivePaths))
	}
	if plan.EffectiveSettings.IsUnknown() {
		plan.EffectiveSettings = types.DynamicNull()
	}
	if waitErr != nil {
		w.pending = true
		w.diags.AddError(fmt.Sprintf("%s: %s", who, waitSummary(waitErr)),
			waitErr.Error()+".\n\nThe state records the written settings; the next plan shows an update of this Application "+
				"until DP has applied them, and the next apply writes them again and waits.")
	}
	return w
}

// waitSummary is the one-line summary of a failed wait.
func waitSummary(err error) string {
	var we *dpclient.WaitError
	switch {
	case errors.As(err, &we) && we.Rejected:
		return "DP rejected the settings"
	case errors.As(err, &we) && we.Timeout:
		return "timed out waiting for DP"
	case errors.As(err, &we) && we.Deleted:
		return "deleted while waiting for DP"
	}
	return "waiting for DP failed"
}

// applyConfiguration is the server-side apply body of the Application.
func applyConfiguration(plan *applicationModel, settings any) map[string]any {
	metadata := map[string]any{
		"name":      plan.Name.ValueString(),
		"namespace": plan.Namespace.ValueString(),
	}
	if labels := stringMap(plan.Labels); len(labels) > 0 {
		metadata["labels"] = labels
	}
	annotations := stringMap(plan.Annotations)
	if plan.AllowDestructiveSettingsSwitch.ValueBool() {
		if annotations == nil {
			annotations = map[string]any{}
		}
		annotations[allowDestructiveSwitchAnnotation] = "true"
	}
	if len(annotations) > 0 {
		metadata["annotations"] = annotations
	}
	spec := map[string]any{
		"packageName":           plan.PackageName.ValueString(),
		"packageVersion":        plan.PackageVersion.ValueString(),
		"packageRepositoryName": plan.PackageRepositoryName.ValueString(),
	}
	if v := plan.ReleaseChannel.ValueString(); v != "" {
		spec["releaseChannel"] = v
	}
	if v := plan.Maintenance.ValueString(); v != "" {
		spec["maintenance"] = v
	}
	if settings != nil {
		spec["settings"] = settings
	}
	return map[string]any{
		"apiVersion": dpapi.ApplicationGVR.GroupVersion().String(),
		"kind":       "Application",
		"metadata":   metadata,
		"spec":       spec,
	}
}

// fieldManager is the resource's field manager, else the provider's.
func (r *Resource) fieldManager(m *applicationModel) string {
	if m != nil && !m.FieldManager.IsNull() && !m.FieldManager.IsUnknown() && m.FieldManager.ValueString() != "" {
		return m.FieldManager.ValueString()
	}
	if r.data != nil && r.data.FieldManager != "" {
		return r.data.FieldManager
	}
	return providerdata.DefaultFieldManager
}

func (r *Resource) forceConflicts(m *applicationModel) bool {
	if m != nil && !m.ForceConflicts.IsNull() && !m.ForceConflicts.IsUnknown() {
		return m.ForceConflicts.ValueBool()
	}
	return r.data != nil && r.data.ForceConflicts
}

func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state applicationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	raw, diags := req.Private.GetKey(ctx, privateSensitivePaths)
	resp.Diagnostics.Append(diags...)
	prior := state
	ref, diags := r.refresh(ctx, &state, decodePaths(raw), hasPrivateKey(ctx, req.Private, privateApplyPending),
		hasPrivateKey(ctx, req.Private, privateImported))
	resp.Diagnostics.Append(diags...)
	switch {
	case resp.Diagnostics.HasError():
		return
	case ref.gone:
		resp.State.RemoveResource(ctx)
		return
	}
	// resp.State starts as the prior state: encoding an unchanged model again
	// is the costliest part of a refresh, so only a changed one is set.
	if !sameModel(&prior, &state) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
	if ref.applied {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateApplyPending, nil)...)
	}
	if ref.uid != "" && privateString(ctx, req.Private, privateUID) != ref.uid {
		uid, _ := json.Marshal(ref.uid)
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateUID, uid)...)
	}
	if resp.Identity != nil {
		resp.Diagnostics.Append(resp.Identity.Set(ctx, applicationIdentity{Namespace: state.Namespace, Name: state.Name})...)
	}
}

// refreshOutcome is what refresh found.
type refreshOutcome struct {
	gone    bool   // the Application no longer exists
	applied bool   // pending was set and DP has applied the current generation since
	uid     string // the Application's UID
}

// refresh updates state from the Application in the cluster (a GET, or the
// namespace LIST shared with other reads).
func (r *Resource) refresh(ctx context.Context, state *applicationModel, sensitivePaths [][]string, pending, imported bool) (out refreshOutcome, diags diag.Diagnostics) {
	cl := providerdata.ClusterClient(ctx, r.data, &diags)
	if cl == nil {
		return out, diags
	}
	obj, err := cl.GetApplication(ctx, state.Namespace.ValueString(), state.Name.ValueString())
	if apierrors.IsNotFound(err) {
		out.gone = true
		return out, diags
	}
	if err != nil {
		diags.AddError(fmt.Sprintf("Cannot read Application %s/%s", state.Namespace.ValueString(), state.Name.ValueString()), err.Error())
		return out, diags
	}
	out.uid = string(obj.GetUID())
	if pending {
		out.applied = dpclient.VerdictOf(obj, state.waitFor()).Done
	}
	if imported {
		// Any value of spec.settings may be a secret: none goes to the
		// state, and every one is kept out of DP's texts.
		settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
		secrets := newRedactor(settings)
		diags.Append(r.fromObject(ctx, state, obj, nil, r.fieldManager(state), secrets.redact)...)
		state.Settings, state.LastAppliedSettings, state.EffectiveSettings = types.DynamicNull(), types.DynamicNull(), types.DynamicNull()
		return out, diags
	}
	secrets := newRedactor(valuesAt(obj, withForeignPaths(obj, r.fieldManager(state), sensitivePaths)))
	diags.Append(r.fromObject(ctx, state, obj, sensitivePaths, r.fieldManager(state), secrets.redact)...)
	return out, diags
}

// valuesAt returns the values of spec.settings at paths (the values
// sensitive_settings wrote), for redaction.
func valuesAt(obj *unstructured.Unstructured, paths [][]string) []any {
	if len(paths) == 0 {
		return nil
	}
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	out := make([]any, 0, len(paths))
	for _, p := range paths {
		if v, ok := lookupPath(settings, p); ok {
			out = append(out, v)
		}
	}
	return out
}

// fromObject refreshes m from the Application in the cluster.
//
//nolint:unparam // returns diagnostics like the framework setters it calls, for future conversions that can fail
func (r *Resource) fromObject(ctx context.Context, m *applicationModel, obj *unstructured.Unstructured, sensitivePaths [][]string, manager string, redact func(string) string) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID = types.StringValue(obj.GetNamespace() + "/" + obj.GetName())
	m.Name = types.StringValue(obj.GetName())
	m.Namespace = types.StringValue(obj.GetNamespace())
	str := func(field string) string {
		s, _, _ := unstructured.NestedString(obj.Object, "spec", field)
		return s
	}
	m.PackageName = types.StringValue(str("packageName"))
	m.PackageVersion = types.StringValue(str("packageVersion"))
	m.PackageRepositoryName = types.StringValue(str("packageRepositoryName"))
	m.ReleaseChannel = optionalString(str("releaseChannel"), m.ReleaseChannel)
	m.Maintenance = optionalString(str("maintenance"), m.Maintenance)

	owned := ownedMetadataKeys(obj, manager)
	m.Labels = managedMap(obj.GetLabels(), m.Labels, owned["labels"], nil)
	m.Annotations = managedMap(obj.GetAnnotations(), m.Annotations, owned["annotations"], map[string]bool{
		allowDestructiveSwitchAnnotation:                   true,
		"kubectl.kubernetes.io/last-applied-configuration": true,
	})

	var prior any
	if !m.Settings.IsNull() && !m.Settings.IsUnknown() {
		prior, _, _ = convert.FromDynamic(m.Settings)
	}
	spec, hasSettings, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings")
	spec, foreignWarning := ownedSettings(obj, manager, spec)
	diags.Append(foreignWarning...)
	settings := stripPaths(spec, sensitivePaths, func(p []string) bool {
		v, ok := lookupPath(prior, p)
		return ok && isEmptyDoc(v)
	})
	switch {
	case !hasSettings || settings == nil:
		if prior == nil || isEmptyDoc(prior) {
			// keep null or {} as written
		} else {
			m.Settings = types.DynamicNull()
		}
	case isEmptyDoc(settings) && (m.Settings.IsNull() || isEmptyDoc(prior)):
		// {} in the cluster and null or {} in the state: no drift.
	default:
		if prior == nil || !jsonEqual(prior, settings) {
			m.Settings = convert.ToDynamic(settings)
		}
	}

	m.Status = statusValue(obj, redact)
	m.LastAppliedSettings = lastAppliedValue(obj, withForeignPaths(obj, manager, sensitivePaths))
	if m.EffectiveSettings.IsNull() || m.EffectiveSettings.IsUnknown() {
		// Imported: DP's last applied effective settings are the best known value.
		m.EffectiveSettings = m.LastAppliedSettings
	}
	if m.ImmutableFieldChange.IsNull() {
		m.ImmutableFieldChange = types.StringValue(immutableModeError)
	}
	if m.AllowDestructiveSettingsSwitch.IsNull() {
		m.AllowDestructiveSettingsSwitch = types.BoolValue(false)
	}
	if m.Wait.IsNull() {
		m.Wait = types.BoolValue(true)
	}
	if m.WaitFor.IsNull() {
		m.WaitFor = types.StringValue(dpclient.ConditionConfigurationApplied)
	}
	_ = ctx
	return diags
}

// managedMap returns the labels (or annotations) Terraform manages: the keys
// of the prior state plus the keys the field manager owns, with their values
// in the cluster. Keys added by others are left out.
func managedMap(cluster map[string]string, prior types.Map, owned map[string]bool, skip map[string]bool) types.Map {
	keys := map[string]bool{}
	if !prior.IsNull() && !prior.IsUnknown() {
		for k := range prior.Elements() {
			keys[k] = true
		}
	}
	for k := range owned {
		keys[k] = true
	}
	elems := map[string]attr.Value{}
	for k := range keys {
		if skip[k] {
			continue
		}
		if v, ok := cluster[k]; ok {
			elems[k] = types.StringValue(v)
		}
	}
	if len(elems) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.MapNull(types.StringType)
	}
	return types.MapValueMust(types.StringType, elems)
}

// ownedMetadataKeys lists the labels and annotations the field manager owns
// through server-side apply (from metadata.managedFields).
func ownedMetadataKeys(obj *unstructured.Unstructured, manager string) map[string]map[string]bool {
	out := map[string]map[string]bool{"labels": {}, "annotations": {}}
	for _, mf := range obj.GetManagedFields() {
		if mf.Manager != manager || mf.Operation != metav1.ManagedFieldsOperationApply || mf.FieldsV1 == nil {
			continue
		}
		var f map[string]any
		if err := json.Unmarshal(mf.FieldsV1.Raw, &f); err != nil {
			continue
		}
		md, _ := f["f:metadata"].(map[string]any)
		for _, kind := range []string{"labels", "annotations"} {
			keys, _ := md["f:"+kind].(map[string]any)
			for k := range keys {
				if len(k) > 2 && k[:2] == "f:" {
					out[kind][k[2:]] = true
				}
			}
		}
	}
	return out
}

func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state applicationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, state.timeout(ctx, "delete", defaultDeleteTimeout))
	defer cancel()
	cl := providerdata.ClusterClient(ctx, r.data, &resp.Diagnostics)
	if cl == nil {
		return
	}
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	wait := state.Wait.IsNull() || state.Wait.ValueBool()
	if err := cl.Delete(ctx, ns, name, privateString(ctx, req.Private, privateUID), wait); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Cannot delete Application %s/%s", ns, name), err.Error())
	}
}

// dpFieldRef is how DP's texts name a settings field: field "a.b[0].c".
var dpFieldRef = regexp.MustCompile(`field "([^"]+)"`)

// dpFieldPath maps the first field DP's text names to the attribute path of
// settings or sensitive_settings that holds it.
func dpFieldPath(text string, settings, sensitive any) (path.Path, bool) {
	m := dpFieldRef.FindStringSubmatch(text)
	if m == nil {
		return path.Path{}, false
	}
	var p engine.Path
	for _, part := range strings.Split(m[1], ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			p = p.Key(name)
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			if !ok {
				break
			}
			n, err := strconv.Atoi(idx)
			if err != nil {
				return path.Path{}, false
			}
			p = p.Index(n)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	root := path.Root("settings")
	if sensitive != nil && problemInSensitive(settings, sensitive, p) {
		root = path.Root("sensitive_settings")
	}
	return diagnostics.AttributePath(root, p), true
}

// fullyKnown reports whether a dynamic value holds no unknown part.
func fullyKnown(ctx context.Context, v types.Dynamic) bool {
	tv, err := v.ToTerraformValue(ctx)
	return err == nil && tv.IsFullyKnown()
}
