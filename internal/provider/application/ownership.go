package application

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// Field ownership of spec.settings. Server-side apply removes only the keys
// this resource's field manager owns; a key another manager added (the DP web
// interface, kubectl edit, kubernetes_manifest's manager after a migration)
// stays whatever this configuration says. Such keys are not this resource's:
//
//   - a refresh keeps them out of the state (no diff on every plan, and their
//     values, which may be secrets, are never stored or printed), and warns
//     naming each path and its managers, never a value;
//   - the plan validates the document DP will see, this configuration's
//     settings merged over the foreign keys, while effective_settings is
//     computed from the configuration alone (the foreign values stay out of
//     the plan).
//
// Ownership is read per key from metadata.managedFields, whichever operation
// (Apply or Update) wrote an entry. Of this manager's own Apply entry, a
// missing f:settings (it applied no settings) and a field set without
// members on a map (it applied settings = {}, or auth = {}) own no key of
// that map: only a scalar or an atomic value (a list) is owned whole by a
// member-less set. An Application this field manager has never applied (no
// Apply entry of its own, for example right after an import) keeps the
// earlier behaviour: every key is read.

// settingsOwnership is who owns what under spec.settings.
type settingsOwnership struct {
	mine   map[string]any            // this manager's field set under f:spec/f:settings; empty when it applied none
	others map[string]map[string]any // other managers' field sets, by manager (Apply and Update entries)
}

// readSettingsOwnership reads the field sets of spec.settings; ok is false
// when manager has no Apply entry of its own.
func readSettingsOwnership(obj *unstructured.Unstructured, manager string) (own settingsOwnership, ok bool) {
	own.others = map[string]map[string]any{}
	for _, mf := range obj.GetManagedFields() {
		if mf.FieldsV1 == nil {
			continue
		}
		var f map[string]any
		if err := json.Unmarshal(mf.FieldsV1.Raw, &f); err != nil {
			continue
		}
		spec, _ := f["f:spec"].(map[string]any)
		set, _ := spec["f:settings"].(map[string]any)
		if mf.Manager == manager && mf.Operation == metav1.ManagedFieldsOperationApply {
			ok = true
			own.mine = mergeFieldSets(own.mine, set)
			continue
		}
		if set != nil {
			own.others[mf.Manager] = mergeFieldSets(own.others[mf.Manager], set)
		}
	}
	if ok && own.mine == nil {
		own.mine = map[string]any{}
	}
	return own, ok
}

func mergeFieldSets(a, b map[string]any) map[string]any {
	if a == nil {
		return b
	}
	for k, v := range b {
		av, _ := a[k].(map[string]any)
		bv, _ := v.(map[string]any)
		if merged := mergeFieldSets(av, bv); merged != nil {
			a[k] = merged
		} else {
			a[k] = map[string]any{}
		}
	}
	return a
}

// splitSettings splits the settings of the cluster into the part this
// manager owns and the foreign part (keys it does not own), recording the
// foreign paths.
func splitSettings(v any, mine map[string]any, at []string, foreignPaths *[][]string) (owned, foreign any) {
	m, isMap := v.(map[string]any)
	if !isMap {
		// A scalar or an atomic value: the key's own entry owns it whole.
		return v, nil
	}
	// A map: only the keys the set lists as members are owned; a set
	// without members (settings = {}, auth = {}) or none owns no key.
	ownedMap, foreignMap := map[string]any{}, map[string]any{}
	for k, child := range m {
		set, has := mine["f:"+k]
		if !has {
			foreignMap[k] = child
			*foreignPaths = append(*foreignPaths, append(append([]string(nil), at...), k))
			continue
		}
		childSet, _ := set.(map[string]any)
		o, f := splitSettings(child, childSet, append(append([]string(nil), at...), k), foreignPaths)
		ownedMap[k] = o
		if f != nil {
			foreignMap[k] = f
		}
	}
	if len(foreignMap) == 0 {
		return ownedMap, nil
	}
	return ownedMap, foreignMap
}

// splitOwnedSettings returns the settings of obj this manager owns, the
// foreign paths, and a warning naming the foreign paths and their managers
// (never a value). Without an Apply entry of the manager, every key is
// returned and nothing is foreign. A refresh reads the ownership of its
// settings once, through it.
func splitOwnedSettings(obj *unstructured.Unstructured, manager string, settings any) (any, [][]string, diag.Diagnostics) {
	own, ok := readSettingsOwnership(obj, manager)
	if !ok || settings == nil {
		return settings, nil, nil
	}
	var paths [][]string
	owned, _ := splitSettings(settings, own.mine, nil, &paths)
	if len(paths) == 0 {
		return settings, nil, nil
	}
	var diags diag.Diagnostics
	diags.AddAttributeWarning(path.Root("settings"), "Settings owned by other field managers",
		fmt.Sprintf("Application %s/%s holds settings that field manager %q does not own: %s. They are not part of this "+
			"resource: they cause no difference in the plan and their values are neither stored nor shown. The plan "+
			"checks the settings DP will see, these included. To manage such a key here, write it into settings "+
			"(the apply then shares or takes its ownership); to remove it, use the manager that added it.",
			obj.GetNamespace(), obj.GetName(), manager, describeForeign(paths, own.others)))
	return owned, paths, diags
}

// foreignSettings returns the part of the settings of obj this manager does
// not own (nil when none): all of them when the manager never applied obj
// (right after an import), since its apply removes no key it does not own.
func foreignSettings(obj *unstructured.Unstructured, manager string) any {
	if obj == nil {
		return nil
	}
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	own, ok := readSettingsOwnership(obj, manager)
	if settings == nil {
		return nil
	}
	if !ok {
		return settings
	}
	var paths [][]string
	_, foreign := splitSettings(settings, own.mine, nil, &paths)
	return foreign
}

// withForeignPaths adds to paths the settings paths of obj that manager does
// not own, so that DP's copy of the applied settings
// (status.lastAppliedConfiguration, which holds every key) and DP's texts
// are stored without their values. The result is not recorded anywhere.
func withForeignPaths(obj *unstructured.Unstructured, manager string, paths []sensitivePath) []sensitivePath {
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	own, ok := readSettingsOwnership(obj, manager)
	if !ok || settings == nil {
		return paths
	}
	var foreign [][]string
	splitSettings(settings, own.mine, nil, &foreign)
	return appendForeignPaths(paths, foreign)
}

// appendForeignPaths returns paths with the foreign settings paths added (a
// new slice when there are any).
func appendForeignPaths(paths []sensitivePath, foreign [][]string) []sensitivePath {
	if len(foreign) == 0 {
		return paths
	}
	out := append([]sensitivePath(nil), paths...)
	for _, p := range foreign {
		out = append(out, sensitivePath(p))
	}
	return out
}

// withoutForeign is doc without the leaves of foreign (the values of other
// managers' keys), for the checks whose messages quote values.
func withoutForeign(doc map[string]any, foreign any) map[string]any {
	if foreign == nil || doc == nil {
		return doc
	}
	out, _ := stripPaths(doc, leafPaths(foreign), nil).(map[string]any)
	return out
}

// documentDPSees is the document the checks evaluate: settings,
// sensitive_settings merged over them, both merged over the keys other
// field managers own (foreign, also returned: checked, never shown).
func (r *Resource) documentDPSees(ctx context.Context, cl *dpclient.Client, in checkInput) (merged, foreign any) {
	merged = in.settings
	if in.sensitive != nil {
		merged = engine.Merge(in.settings, in.sensitive)
	}
	if foreign = r.foreignOf(ctx, cl, in); foreign != nil {
		merged = engine.Merge(foreign, merged)
	}
	return merged, foreign
}

// foreignOf returns the settings of the Application in the cluster that the
// field manager of this resource does not own, for the plan to check the
// document DP will see. Only on an update: a new Application has none, and
// its plan reads nothing more.
func (r *Resource) foreignOf(ctx context.Context, cl *dpclient.Client, in checkInput) any {
	if !in.hasPrevious {
		return nil
	}
	obj, err := cl.GetApplication(ctx, in.namespace, in.name)
	if err != nil || obj == nil {
		return nil
	}
	manager := in.fieldManager
	if manager == "" && r.data != nil {
		manager = r.data.FieldManager
	}
	return foreignSettings(obj, manager)
}

// describeForeign names each foreign path with the managers that own it.
func describeForeign(paths [][]string, others map[string]map[string]any) string {
	parts := make([]string, 0, len(paths))
	for _, p := range paths {
		var managers []string
		for name, set := range others {
			if ownsPath(set, p) {
				managers = append(managers, name)
			}
		}
		sort.Strings(managers)
		who := "no field manager"
		if len(managers) > 0 {
			who = strings.Join(managers, ", ")
		}
		parts = append(parts, fmt.Sprintf("settings.%s (%s)", strings.Join(p, "."), who))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// ownsPath reports whether a field set owns p or a member of it.
func ownsPath(set map[string]any, p []string) bool {
	cur := set
	for _, k := range p {
		next, ok := cur["f:"+k]
		if !ok {
			return false
		}
		cur, _ = next.(map[string]any)
	}
	return true
}
