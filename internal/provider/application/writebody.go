package application

import (
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
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

// keepContainers adds to body, the apply configuration, every map (and
// list-map entry) of obj that this manager applied before, that holds
// fields of other managers and that body no longer writes: as an empty map
// (an entry as its key fields). Server-side apply removes a field its
// manager stops applying, and with it every field below that only an update
// (kubectl edit) wrote; kept, the map stays this manager's with the others'
// fields in it, and a refresh leaves it out (ownership.go).
func keepContainers(body map[string]any, obj *unstructured.Unstructured, manager string) {
	own := readOwners(obj, manager)
	if own.applied {
		keepIn(body, obj.Object, own.mine, fieldSets(own.others))
	}
}

func keepIn(body, cluster, mine map[string]any, others fieldSets) {
	for k, cv := range cluster {
		elem := "f:" + k
		mc, has := mine[elem]
		oc := others.child(elem)
		if !has || len(oc) == 0 {
			continue
		}
		ms, _ := mc.(map[string]any)
		switch cv := cv.(type) {
		case map[string]any:
			if _, ok := body[k]; !ok {
				body[k] = map[string]any{}
			}
			if bm, ok := body[k].(map[string]any); ok {
				keepIn(bm, cv, ms, oc)
			}
		case []any:
			if bl, ok := keepEntries(body[k], cv, ms, oc); ok {
				body[k] = bl
			}
		}
	}
}

// keepEntries is keepIn of a list-map: the entries this manager applied
// that hold others' fields, kept in the body's list (false: an atomic list,
// left as it is).
func keepEntries(bodyList any, cluster []any, mine map[string]any, others fieldSets) ([]any, bool) {
	sets := withMine(mine, others)
	if !listWithMembers(sets) {
		return nil, false
	}
	bl, _ := bodyList.([]any)
	for _, e := range cluster {
		elem, keys, _ := elementOf(e, sets)
		em, isMap := e.(map[string]any)
		mc, has := mine[elem]
		oc := others.child(elem)
		if elem == "" || keys == nil || !isMap || !has || len(oc) == 0 {
			continue
		}
		be, found := priorElement(bl, e, keys)
		if !found {
			key := map[string]any{}
			for f := range keys {
				key[f] = em[f]
			}
			bl, be = append(bl, key), key
		}
		ms, _ := mc.(map[string]any)
		if bm, ok := be.(map[string]any); ok {
			keepIn(bm, em, ms, oc)
		}
	}
	return bl, true
}

// emptiedFields are the fields of obj's spec that the server-side apply of
// body would remove from a map body writes empty (settings = {}, auth = {}),
// leaving it empty: the API server stores a map emptied so as null and
// refuses it where the schema wants an object ("spec.settings in body must
// be of type object: null"), so they are removed before the apply instead
// (dpclient.RemoveFields). A map body leaves out goes whole, as the
// configuration says.
func emptiedFields(body map[string]any, obj *unstructured.Unstructured, manager string) []dpclient.RemovedField {
	own := readOwners(obj, manager)
	bodySpec, _ := body["spec"].(map[string]any)
	clusterSpec, _ := obj.Object["spec"].(map[string]any)
	mineSpec, _ := own.mine["f:spec"].(map[string]any)
	if !own.applied || bodySpec == nil || clusterSpec == nil {
		return nil
	}
	var out []dpclient.RemovedField
	emptiedIn(bodySpec, clusterSpec, mineSpec, fieldSets(own.others).child("f:spec"), []string{"spec"}, &out)
	return out
}

func emptiedIn(body, cluster, mine map[string]any, others fieldSets, at []string, out *[]dpclient.RemovedField) {
	for k, cv := range cluster {
		cm, isMap := cv.(map[string]any)
		bm, bodyMap := body[k].(map[string]any)
		mc, has := mine["f:"+k]
		if !isMap || !bodyMap || !has {
			continue
		}
		ms, _ := mc.(map[string]any)
		oc := others.child("f:" + k)
		here := appendPath(at, k)
		if len(bm) > 0 || len(cm) == 0 {
			emptiedIn(bm, cm, ms, oc, here, out)
			continue
		}
		survives := false
		for ck := range cm {
			_, mineHas := ms["f:"+ck]
			survives = survives || !mineHas || len(oc.child("f:"+ck)) > 0
		}
		if !survives {
			for ck, v := range cm {
				*out = append(*out, dpclient.RemovedField{Path: appendPath(here, ck), Value: v})
			}
		}
	}
}
