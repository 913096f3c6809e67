package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// Private state key holding the key paths supplied by sensitive_settings
// (paths only, never values), so Read can keep them out of settings.
const privateSensitivePaths = "sensitive_paths"

func (r *ApplicationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan applicationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var sensitive types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_settings"), &sensitive)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, plan.timeout("create", defaultCreateTimeout))
	defer cancel()
	r.write(ctx, &plan, nil, sensitive, "create", &resp.Diagnostics, &resp.State, resp.Private, resp.Identity)
}

func (r *ApplicationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state applicationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	var sensitive types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_settings"), &sensitive)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !specChanged(&plan, &state) && plan.Labels.Equal(state.Labels) && plan.Annotations.Equal(state.Annotations) {
		// Only provider-side arguments (wait, timeouts, modes) changed.
		copyComputed(&plan, &state)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, plan.timeout("update", defaultUpdateTimeout))
	defer cancel()
	r.write(ctx, &plan, &state, sensitive, "update", &resp.Diagnostics, &resp.State, resp.Private, resp.Identity)
}

// stateSetter, privateSetter and identitySetter are the parts of the create
// and update responses write needs.
type stateSetter interface {
	Set(ctx context.Context, val any) diag.Diagnostics
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

type identitySetter interface {
	Set(ctx context.Context, val any) diag.Diagnostics
}

// write runs the deferred checks, applies the Application, waits for DP and
// records the state. On an error after the object was written the state
// keeps what exists in the cluster.
func (r *ApplicationResource) write(ctx context.Context, plan, prior *applicationModel, sensitiveVal types.Dynamic, op string,
	diags *diag.Diagnostics, state stateSetter, private privateSetter, identity identitySetter) {
	if r.data == nil {
		diags.AddError("Provider not configured", "The deckhouse provider has no cluster configuration.")
		return
	}
	dyn, err := r.data.Dynamic(ctx)
	if err != nil {
		diags.AddError("Cannot connect to the cluster", err.Error())
		return
	}
	settings, _, err := fromDynamic(plan.Settings)
	if err != nil {
		diags.AddAttributeError(path.Root("settings"), "Invalid settings", err.Error())
		return
	}
	if settings != nil {
		if _, ok := settings.(map[string]any); !ok {
			diags.AddAttributeError(path.Root("settings"), "Invalid settings", "settings must be an object.")
			return
		}
	}
	sensitive, _, err := fromDynamic(sensitiveVal)
	if err != nil {
		diags.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", err.Error())
		return
	}
	if sensitive != nil {
		if _, ok := sensitive.(map[string]any); !ok {
			diags.AddAttributeError(path.Root("sensitive_settings"), "Invalid sensitive_settings", "sensitive_settings must be an object.")
			return
		}
	}

	// The checks the plan could not run (package version not published yet,
	// cluster unreachable or provider configuration unknown at plan).
	if plan.PackageRepositoryName.IsUnknown() || plan.PackageRepositoryName.IsNull() || plan.EffectiveSettings.IsUnknown() {
		out := r.check(ctx, dyn, checkInputFromModel(plan, prior, settings, sensitive), false)
		diags.Append(out.diags...)
		if diags.HasError() {
			return
		}
		if plan.PackageRepositoryName.IsUnknown() || plan.PackageRepositoryName.IsNull() {
			plan.PackageRepositoryName = types.StringValue(out.repository)
		}
		if plan.EffectiveSettings.IsUnknown() {
			plan.EffectiveSettings = toDynamic(out.effective)
		}
	}

	merged := settings
	if sensitive != nil {
		merged = deepMerge(settings, sensitive)
	}
	if r.cache != nil {
		r.cache.apps.forget(plan.Namespace.ValueString())
	}
	obj, err := r.apply(ctx, dyn, plan, merged)
	if err != nil {
		diags.AddError(fmt.Sprintf("Cannot %s Application %s/%s", op, plan.Namespace.ValueString(), plan.Name.ValueString()), err.Error())
		return
	}
	sensitivePaths := leafPaths(sensitive)
	diags.Append(private.SetKey(ctx, privateSensitivePaths, encodePaths(sensitivePaths))...)
	tflog.Debug(ctx, "applied Application", map[string]any{"namespace": plan.Namespace.ValueString(), "name": plan.Name.ValueString(), "generation": obj.GetGeneration()})

	var waitErr error
	if plan.Wait.ValueBool() {
		obj, waitErr = waitConfigurationApplied(ctx, dyn, obj)
	}
	plan.ID = types.StringValue(plan.Namespace.ValueString() + "/" + plan.Name.ValueString())
	if plan.Status.IsUnknown() {
		plan.Status = statusValue(obj)
	}
	if plan.LastAppliedSettings.IsUnknown() {
		plan.LastAppliedSettings = lastAppliedValue(obj, sensitivePaths)
	}
	if plan.EffectiveSettings.IsUnknown() {
		plan.EffectiveSettings = types.DynamicNull()
	}
	diags.Append(state.Set(ctx, plan)...)
	if identity != nil {
		diags.Append(identity.Set(ctx, applicationIdentity{Namespace: plan.Namespace, Name: plan.Name})...)
	}
	if waitErr != nil {
		diags.AddError(fmt.Sprintf("Application %s/%s: settings not applied", plan.Namespace.ValueString(), plan.Name.ValueString()), waitErr.Error())
	}
}

// apply writes the Application with server-side apply (one request).
func (r *ApplicationResource) apply(ctx context.Context, dyn dynamic.Interface, plan *applicationModel, settings any) (*unstructured.Unstructured, error) {
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
	body, err := json.Marshal(map[string]any{
		"apiVersion": applicationGVR.GroupVersion().String(),
		"kind":       "Application",
		"metadata":   metadata,
		"spec":       spec,
	})
	if err != nil {
		return nil, fmt.Errorf("encoding the Application: %w", err)
	}
	force := r.data.ForceConflicts
	return dyn.Resource(applicationGVR).Namespace(plan.Namespace.ValueString()).Patch(ctx, plan.Name.ValueString(),
		k8stypes.ApplyPatchType, body, metav1.PatchOptions{FieldManager: r.fieldManager(), Force: &force})
}

func (r *ApplicationResource) fieldManager() string {
	if r.data != nil && r.data.FieldManager != "" {
		return r.data.FieldManager
	}
	return "terraform-provider-deckhouse"
}

// appliedVerdict reports whether DP has judged the current generation:
// done (True), or a terminal rejection (False with SettingsInvalid or HookFailed).
func appliedVerdict(obj *unstructured.Unstructured) (done bool, err error) {
	c := findCondition(obj, "ConfigurationApplied")
	if c == nil {
		return false, nil
	}
	og, ok := asInt64(c["observedGeneration"])
	if !ok || og != obj.GetGeneration() {
		return false, nil
	}
	status, _ := c["status"].(string)
	reason, _ := c["reason"].(string)
	message, _ := c["message"].(string)
	switch {
	case status == "True":
		return true, nil
	case status == "False" && (reason == "SettingsInvalid" || reason == "HookFailed"):
		return true, fmt.Errorf("DP rejected the settings (ConfigurationApplied=False, reason %s): %s", reason, message)
	}
	return false, nil
}

func asInt64(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case float64:
		return int64(v), true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	}
	return 0, false
}

// waitConfigurationApplied watches the Application (field selector on its
// name, from the resourceVersion of obj) until DP's verdict on its generation.
// It returns the last object seen.
func waitConfigurationApplied(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if done, err := appliedVerdict(obj); done {
		return obj, err
	}
	client := dyn.Resource(applicationGVR).Namespace(obj.GetNamespace())
	name := obj.GetName()
	rv := obj.GetResourceVersion()
	last := obj
	for {
		w, err := client.Watch(ctx, metav1.ListOptions{
			FieldSelector:       fields.OneTermEqualSelector("metadata.name", name).String(),
			ResourceVersion:     rv,
			AllowWatchBookmarks: true,
		})
		if err != nil {
			if ctx.Err() != nil {
				return last, timeoutError(ctx, last)
			}
			return last, fmt.Errorf("watching the Application: %w", err)
		}
		restart := false
		for !restart {
			select {
			case <-ctx.Done():
				w.Stop()
				return last, timeoutError(ctx, last)
			case ev, ok := <-w.ResultChan():
				if !ok {
					restart = true
					break
				}
				switch ev.Type {
				case watch.Added, watch.Modified:
					u, ok := ev.Object.(*unstructured.Unstructured)
					if !ok {
						continue
					}
					last, rv = u, u.GetResourceVersion()
					if done, err := appliedVerdict(u); done {
						w.Stop()
						return u, err
					}
				case watch.Bookmark:
					if u, ok := ev.Object.(*unstructured.Unstructured); ok {
						rv = u.GetResourceVersion()
					}
				case watch.Deleted:
					w.Stop()
					return last, errors.New("the Application was deleted while waiting for DP to apply its settings")
				case watch.Error:
					w.Stop()
					status := apierrors.FromObject(ev.Object)
					var se apierrors.APIStatus
					if errors.As(status, &se) && se.Status().Code == http.StatusGone {
						// The resourceVersion is too old: read the object again.
						u, err := client.Get(ctx, name, metav1.GetOptions{})
						if err != nil {
							return last, fmt.Errorf("reading the Application: %w", err)
						}
						last, rv = u, u.GetResourceVersion()
						if done, err := appliedVerdict(u); done {
							return u, err
						}
						restart = true
						break
					}
					return last, fmt.Errorf("watching the Application: %w", status)
				}
			}
		}
	}
}

func timeoutError(ctx context.Context, last *unstructured.Unstructured) error {
	msg := "timed out waiting for DP to apply the settings (condition ConfigurationApplied for generation " +
		fmt.Sprint(last.GetGeneration()) + ")"
	if c := findCondition(last, "ConfigurationApplied"); c != nil {
		msg += fmt.Sprintf("; last ConfigurationApplied: status %v, reason %v, message %v", c["status"], c["reason"], c["message"])
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errors.New(msg + "; raise the timeouts block or set wait = false")
	}
	return errors.New(msg)
}

func (r *ApplicationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state applicationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	raw, diags := req.Private.GetKey(ctx, privateSensitivePaths)
	resp.Diagnostics.Append(diags...)
	prior := state
	gone, diags := r.refresh(ctx, &state, decodePaths(raw))
	resp.Diagnostics.Append(diags...)
	switch {
	case resp.Diagnostics.HasError():
		return
	case gone:
		resp.State.RemoveResource(ctx)
		return
	}
	// resp.State starts as the prior state: encoding an unchanged model again
	// is the costliest part of a refresh, so only a changed one is set.
	if !sameModel(&prior, &state) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
	if resp.Identity != nil {
		resp.Diagnostics.Append(resp.Identity.Set(ctx, applicationIdentity{Namespace: state.Namespace, Name: state.Name})...)
	}
}

// refresh updates state from the Application in the cluster (a GET, or the
// namespace LIST shared with other reads; see applicationReads). It
// reports gone when the Application no longer exists.
func (r *ApplicationResource) refresh(ctx context.Context, state *applicationModel, sensitivePaths [][]string) (gone bool, diags diag.Diagnostics) {
	if r.data == nil {
		diags.AddError("Provider not configured", "The deckhouse provider has no cluster configuration.")
		return false, diags
	}
	dyn, err := r.data.Dynamic(ctx)
	if err != nil {
		diags.AddError("Cannot connect to the cluster", err.Error())
		return false, diags
	}
	reads := newApplicationReads()
	if r.cache != nil {
		reads = r.cache.apps
	}
	obj, err := reads.get(ctx, dyn, state.Namespace.ValueString(), state.Name.ValueString())
	if apierrors.IsNotFound(err) {
		return true, diags
	}
	if err != nil {
		diags.AddError(fmt.Sprintf("Cannot read Application %s/%s", state.Namespace.ValueString(), state.Name.ValueString()), err.Error())
		return false, diags
	}
	diags.Append(r.fromObject(ctx, state, obj, sensitivePaths, r.fieldManager())...)
	return false, diags
}

// fromObject refreshes m from the Application in the cluster.
//
//nolint:unparam // returns diagnostics like the framework setters it calls, for future conversions that can fail
func (r *ApplicationResource) fromObject(ctx context.Context, m *applicationModel, obj *unstructured.Unstructured, sensitivePaths [][]string, manager string) diag.Diagnostics {
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
		prior, _, _ = fromDynamic(m.Settings)
	}
	spec, hasSettings, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings")
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
			m.Settings = toDynamic(settings)
		}
	}

	m.Status = statusValue(obj)
	m.LastAppliedSettings = lastAppliedValue(obj, sensitivePaths)
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
	_ = ctx
	return diags
}

// jsonEqual compares two documents in the JSON data model by their encoding.
func jsonEqual(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}

func optionalString(s string, prior types.String) types.String {
	if s == "" && (prior.IsNull() || prior.IsUnknown()) {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func stringMap(m types.Map) map[string]any {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]any{}
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out[k] = s.ValueString()
		}
	}
	return out
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

func statusValue(obj *unstructured.Unstructured) types.Object {
	str := func(fields ...string) types.String {
		s, ok, _ := unstructured.NestedString(obj.Object, fields...)
		if !ok {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	cond := types.ObjectNull(conditionAttrTypes)
	if c := findCondition(obj, "ConfigurationApplied"); c != nil {
		s := func(k string) types.String {
			v, ok := c[k].(string)
			if !ok {
				return types.StringNull()
			}
			return types.StringValue(v)
		}
		cond = types.ObjectValueMust(conditionAttrTypes, map[string]attr.Value{
			"status": s("status"), "reason": s("reason"), "message": s("message"),
		})
	}
	return types.ObjectValueMust(statusAttrTypes, map[string]attr.Value{
		"state":                 str("status", "summary", "state"),
		"message":               str("status", "summary", "message"),
		"installed_version":     str("status", "currentVersion", "version"),
		"configuration_applied": cond,
	})
}

func lastAppliedValue(obj *unstructured.Unstructured, sensitivePaths [][]string) types.Dynamic {
	v, ok, _ := unstructured.NestedFieldCopy(obj.Object, "status", "lastAppliedConfiguration")
	if !ok || v == nil {
		return types.DynamicNull()
	}
	return toDynamic(stripPaths(v, sensitivePaths, nil))
}

func (r *ApplicationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state applicationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		resp.Diagnostics.AddError("Provider not configured", "The deckhouse provider has no cluster configuration.")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, state.timeout("delete", defaultDeleteTimeout))
	defer cancel()
	dyn, err := r.data.Dynamic(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot connect to the cluster", err.Error())
		return
	}
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	if r.cache != nil {
		r.cache.apps.forget(ns)
	}
	client := dyn.Resource(applicationGVR).Namespace(ns)
	err = client.Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Cannot delete Application %s/%s", ns, name), err.Error())
		return
	}
	if state.Wait.IsNull() || state.Wait.ValueBool() {
		if err := waitGone(ctx, client, name); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("Application %s/%s not deleted", ns, name), err.Error())
		}
	}
}

// waitGone waits by watch until the named object no longer exists.
func waitGone(ctx context.Context, client dynamic.ResourceInterface, name string) error {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	for {
		list, err := client.List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			if ctx.Err() != nil {
				return goneTimeout(ctx)
			}
			return fmt.Errorf("listing: %w", err)
		}
		if len(list.Items) == 0 {
			return nil
		}
		w, err := client.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: list.GetResourceVersion()})
		if err != nil {
			if ctx.Err() != nil {
				return goneTimeout(ctx)
			}
			return fmt.Errorf("watching: %w", err)
		}
		gone, err := func() (bool, error) {
			defer w.Stop()
			for {
				select {
				case <-ctx.Done():
					return false, goneTimeout(ctx)
				case ev, ok := <-w.ResultChan():
					if !ok {
						return false, nil
					}
					switch ev.Type {
					case watch.Deleted:
						return true, nil
					case watch.Error:
						return false, nil // relist
					}
				}
			}
		}()
		if gone || err != nil {
			return err
		}
		if ctx.Err() != nil {
			return goneTimeout(ctx)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func goneTimeout(ctx context.Context) error {
	return fmt.Errorf("timed out waiting for the Application to disappear (finalizers still pending?): %w", ctx.Err())
}

// specChanged reports whether anything DP sees changed between plan and state.
func specChanged(plan, state *applicationModel) bool {
	return !plan.Name.Equal(state.Name) ||
		!plan.Namespace.Equal(state.Namespace) ||
		!plan.PackageName.Equal(state.PackageName) ||
		!plan.PackageVersion.Equal(state.PackageVersion) ||
		!plan.PackageRepositoryName.Equal(state.PackageRepositoryName) ||
		!plan.ReleaseChannel.Equal(state.ReleaseChannel) ||
		!plan.Maintenance.Equal(state.Maintenance) ||
		!plan.Settings.Equal(state.Settings) ||
		!plan.SensitiveSettingsVersion.Equal(state.SensitiveSettingsVersion) ||
		!plan.AllowDestructiveSettingsSwitch.Equal(state.AllowDestructiveSettingsSwitch)
}

// sameModel reports whether two models hold equal values in every attribute.
func sameModel(a, b *applicationModel) bool {
	return a.ID.Equal(b.ID) &&
		a.Name.Equal(b.Name) &&
		a.Namespace.Equal(b.Namespace) &&
		a.PackageName.Equal(b.PackageName) &&
		a.PackageVersion.Equal(b.PackageVersion) &&
		a.PackageRepositoryName.Equal(b.PackageRepositoryName) &&
		a.ReleaseChannel.Equal(b.ReleaseChannel) &&
		a.Maintenance.Equal(b.Maintenance) &&
		a.Labels.Equal(b.Labels) &&
		a.Annotations.Equal(b.Annotations) &&
		a.Settings.Equal(b.Settings) &&
		a.SensitiveSettings.Equal(b.SensitiveSettings) &&
		a.SensitiveSettingsVersion.Equal(b.SensitiveSettingsVersion) &&
		a.ImmutableFieldChange.Equal(b.ImmutableFieldChange) &&
		a.AllowDestructiveSettingsSwitch.Equal(b.AllowDestructiveSettingsSwitch) &&
		a.Wait.Equal(b.Wait) &&
		a.Timeouts.Equal(b.Timeouts) &&
		a.EffectiveSettings.Equal(b.EffectiveSettings) &&
		a.Status.Equal(b.Status) &&
		a.LastAppliedSettings.Equal(b.LastAppliedSettings)
}

// copyComputed keeps the computed values of the state in the plan.
func copyComputed(plan, state *applicationModel) {
	plan.ID = state.ID
	plan.EffectiveSettings = state.EffectiveSettings
	plan.Status = state.Status
	plan.LastAppliedSettings = state.LastAppliedSettings
	if plan.PackageRepositoryName.IsUnknown() {
		plan.PackageRepositoryName = state.PackageRepositoryName
	}
}
