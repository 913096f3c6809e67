package application

import (
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

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
	spec := map[string]any{}
	writeSpecFields(plan, spec)
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

// readsImportedSettings reports whether the provider's import_settings is
// "read": the state of an Application imported and not yet written holds its
// spec.settings.
func (r *Resource) readsImportedSettings() bool { return r.data != nil && r.data.ImportSettingsRead }

func (r *Resource) forceConflicts(m *applicationModel) bool {
	if m != nil && !m.ForceConflicts.IsNull() && !m.ForceConflicts.IsUnknown() {
		return m.ForceConflicts.ValueBool()
	}
	return r.data != nil && r.data.ForceConflicts
}

// Read refreshes the state from the Application in the cluster. An
// Application of the same namespace and name but another UID than the one
// this state recorded is not the one it manages (someone deleted that one
// and created another): the resource is removed from the state with a
// warning, so a later destroy never deletes the newcomer.
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
