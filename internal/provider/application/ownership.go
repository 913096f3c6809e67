package application

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// Field ownership: what of the Application the state holds. Every
// attribute the provider writes to the Application (settings, labels,
// annotations and the spec fields of the attribute table) is read back
// through one projection with one rule, field by field (a key of a map, a
// field of an object, an entry of a list-map):
//
//   - a field the configuration sets, as the prior state records it, is
//     read with the cluster's value whoever owns it now: a change by
//     another writer shows as drift (old -> new), and when that writer took
//     the field over (kubectl edit, a forced apply) the warning names it;
//   - a field this field manager owns (its server-side apply entries) is
//     read as it is;
//   - anything else is left out of the state: another manager's field (the
//     DP web interface, kubectl create or edit, kubernetes_manifest's
//     manager after a migration) causes no diff and its value, which may be
//     a secret, is never stored or printed; a spec field is named, with its
//     managers and never a value, in the warning. A field nobody owns (a
//     default the API server filled in) is left out unnamed.
//
// Ownership is read from metadata.managedFields, whichever operation (Apply
// or Update) wrote an entry; of this field manager only its Apply entries
// count. A field set without members on a map (settings = {}, auth = {})
// owns no key of that map; a scalar or an atomic value (a list that is not
// a list-map) is owned whole. Before the first apply after an import, and
// on an Application this field manager has never applied, the spec is read
// whole; labels and annotations keep the rule (DP and other tools add their
// own to every Application).

// owners is who owns what of an Application.
type owners struct {
	applied bool                      // the manager has an Apply entry
	mine    map[string]any            // its Apply entries' field sets, merged
	others  map[string]map[string]any // every other entry's field set, by manager
}

// readOwners reads the field sets of obj's managedFields for manager.
func readOwners(obj *unstructured.Unstructured, manager string) owners {
	o := owners{mine: map[string]any{}, others: map[string]map[string]any{}}
	for _, mf := range obj.GetManagedFields() {
		if mf.FieldsV1 == nil {
			continue
		}
		var f map[string]any
		if err := json.Unmarshal(mf.FieldsV1.GetRawBytes(), &f); err != nil {
			continue
		}
		if mf.Manager == manager && mf.Operation == metav1.ManagedFieldsOperationApply {
			o.applied = true
			o.mine = mergeFieldSets(o.mine, f)
			continue
		}
		o.others[mf.Manager] = mergeFieldSets(o.others[mf.Manager], f)
	}
	return o
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

// fieldSets are the field sets of several managers at one node, by manager.
type fieldSets map[string]map[string]any

// child is the sets of the member elem ("f:name", "k:{...}", "v:...") of
// each manager that has it.
func (s fieldSets) child(elem string) fieldSets {
	out := fieldSets{}
	for m, set := range s {
		if c, ok := set[elem]; ok {
			cs, _ := c.(map[string]any)
			if cs == nil {
				cs = map[string]any{}
			}
			out[m] = cs
		}
	}
	return out
}

func (s fieldSets) managers() []string {
	out := make([]string, 0, len(s))
	for m := range s {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// ownedPath is a field named by the projection: its path below the
// attribute and the other managers that own it.
type ownedPath struct {
	path     []string
	managers []string
}

// projection is one walk of an attribute's value in the cluster.
type projection struct {
	takenOver []ownedPath // set by the configuration, owned by others only
	leftOut   []ownedPath // not set by the configuration, owned by others (managers empty: by nobody)
}

// project returns what the state holds of the value at path in obj (false:
// nothing), over prior, what the prior state holds there in the JSON data
// model (set false: the configuration does not set it).
func (p *projection) project(obj map[string]any, own owners, path []string, prior any, set bool) (any, bool) {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj, path...)
	if !ok {
		return nil, false
	}
	mine, others := own.mine, fieldSets(own.others)
	for _, seg := range path[:len(path)-1] {
		mine, _ = mine["f:"+seg].(map[string]any)
		others = others.child("f:" + seg)
	}
	last := "f:" + path[len(path)-1]
	mineHere, _ := mine[last].(map[string]any)
	othersHere := others.child(last)
	if walked(v, mineHere, othersHere) {
		// The attribute's own map or list-map is walked whatever owns it, so
		// each field of it is read or named by itself.
		out := p.inner(v, prior, mineHere, othersHere, nil)
		return out, set || !hollow(out, nil)
	}
	return p.field(v, prior, set, mine, others, last, nil, nil)
}

// walked reports whether v is walked member by member: a map, or a list
// whose entries the sets name (a list-map or a set); an atomic list is one
// value.
func walked(v any, mine map[string]any, others fieldSets) bool {
	switch v.(type) {
	case map[string]any:
		return true
	case []any:
		return listWithMembers(withMine(mine, others))
	}
	return false
}

// withMine is others with mine under the name "".
func withMine(mine map[string]any, others fieldSets) fieldSets {
	sets := fieldSets{"": mine}
	for m, s := range others {
		sets[m] = s
	}
	return sets
}

// field is project of one member elem of a node whose sets are mine and
// others: v is its value in the cluster, prior the prior state's (set
// false: none). keys are the key fields of a list-map entry.
func (p *projection) field(v, prior any, set bool, mine map[string]any, others fieldSets, elem string, at []string, keys map[string]bool) (any, bool) {
	mineChild, mineHas := mine[elem]
	mineSet, _ := mineChild.(map[string]any)
	othersChild := others.child(elem)
	switch {
	case set:
		if !mineHas && len(othersChild) > 0 && !walked(v, mineSet, othersChild) {
			p.takenOver = append(p.takenOver, ownedPath{path: at, managers: othersChild.managers()})
		}
		return p.inner(v, prior, mineSet, othersChild, at), true
	case mineHas:
		out := p.inner(v, nil, mineSet, othersChild, at)
		// A map or entry kept only to hold other managers' fields (or one a
		// sensitive value filled) is not the configuration's.
		return out, !hollow(out, keys)
	default:
		p.leftOut = append(p.leftOut, ownedPath{path: at, managers: othersChild.managers()})
		return nil, false
	}
}

// inner walks the members of a map or of a list-map (or set) and returns
// any other value whole.
func (p *projection) inner(v, prior any, mine map[string]any, others fieldSets, at []string) any {
	switch v := v.(type) {
	case map[string]any:
		pm, _ := prior.(map[string]any)
		out := make(map[string]any, len(v))
		for k, child := range v {
			cp, set := pm[k]
			if got, ok := p.field(child, cp, set, mine, others, "f:"+k, appendPath(at, k), nil); ok {
				out[k] = got
			}
		}
		return out
	case []any:
		sets := withMine(mine, others)
		if !listWithMembers(sets) {
			return v // atomic
		}
		pl, _ := prior.([]any)
		out := make([]any, 0, len(v))
		for _, e := range v {
			elem, keys, step := elementOf(e, sets)
			if elem == "" {
				out = append(out, e) // no field set names it
				continue
			}
			cp, set := priorElement(pl, e, keys)
			if got, ok := p.field(e, cp, set, mine, others, elem, appendPath(at, step), keys); ok {
				out = append(out, got)
			}
		}
		return out
	}
	return v
}

func appendPath(at []string, step string) []string { return append(append([]string(nil), at...), step) }

// isMapOrList reports whether v is a map or a list.
func isMapOrList(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// hollow reports whether a projected value holds nothing of its own: an
// empty map or list, or a list-map entry with only its key fields.
func hollow(v any, keys map[string]bool) bool {
	switch v := v.(type) {
	case map[string]any:
		for k := range v {
			if !keys[k] {
				return false
			}
		}
		return true
	case []any:
		return len(v) == 0
	}
	return v == nil
}

// listWithMembers reports whether any set at a list's node names its
// entries (a list-map's "k:" or a set's "v:"); an atomic list has none.
func listWithMembers(sets fieldSets) bool {
	for _, s := range sets {
		for k := range s {
			if strings.HasPrefix(k, "k:") || strings.HasPrefix(k, "v:") {
				return true
			}
		}
	}
	return false
}

// elementOf finds the member that names list entry e in sets: its element
// ("k:{...}" or "v:..."), the key fields of a list-map entry, and the step
// the warning shows ([kind="Deployment",name="web"]).
func elementOf(e any, sets fieldSets) (elem string, keys map[string]bool, step string) {
	if raw, err := json.Marshal(e); err == nil && !isMapOrList(e) {
		for _, s := range sets {
			if _, ok := s["v:"+string(raw)]; ok {
				return "v:" + string(raw), nil, "[" + string(raw) + "]"
			}
		}
	}
	m, ok := e.(map[string]any)
	if !ok {
		return "", nil, ""
	}
	for _, s := range sets {
		for k := range s {
			if !strings.HasPrefix(k, "k:") {
				continue
			}
			var key map[string]any
			if json.Unmarshal([]byte(k[2:]), &key) != nil || !matchesKey(m, key) {
				continue
			}
			names := make([]string, 0, len(key))
			keys = map[string]bool{}
			for f := range key {
				names = append(names, f)
				keys[f] = true
			}
			sort.Strings(names)
			parts := make([]string, len(names))
			for i, f := range names {
				raw, _ := json.Marshal(key[f])
				parts[i] = f + "=" + string(raw)
			}
			return k, keys, "[" + strings.Join(parts, ",") + "]"
		}
	}
	return "", nil, ""
}

// matchesKey reports whether entry m has the values of key.
func matchesKey(m, key map[string]any) bool {
	for f, want := range key {
		if !jsonvalue.Equal(m[f], want) {
			return false
		}
	}
	return len(key) > 0
}

// priorElement is the entry of prior with the key fields of e (the same
// value for a set's entry).
func priorElement(prior []any, e any, keys map[string]bool) (any, bool) {
	for _, pe := range prior {
		if keys == nil {
			if jsonvalue.Equal(pe, e) {
				return pe, true
			}
			continue
		}
		pm, _ := pe.(map[string]any)
		em, _ := e.(map[string]any)
		same := pm != nil
		for k := range keys {
			same = same && jsonvalue.Equal(pm[k], em[k])
		}
		if same {
			return pe, true
		}
	}
	return nil, false
}

// foreignSettings returns the part of the settings of obj this manager does
// not own (nil when none): all of them when the manager never applied obj
// (right after an import), since its apply removes no key it does not own.
func foreignSettings(obj *unstructured.Unstructured, manager string) any {
	if obj == nil {
		return nil
	}
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	if settings == nil {
		return nil
	}
	own := readOwners(obj, manager)
	if !own.applied {
		return settings
	}
	var p projection
	p.project(obj.Object, own, settingsPath, nil, false)
	var foreign any
	for _, f := range p.leftOut {
		v, _ := lookupPath(settings, f.path)
		foreign = engine.Merge(foreign, nestAt(f.path, v))
	}
	return foreign
}

// nestAt is v at path p of an otherwise empty document.
func nestAt(p []string, v any) any {
	for i := len(p) - 1; i >= 0; i-- {
		v = map[string]any{p[i]: v}
	}
	return v
}

// settingsPath is where the settings are in an Application.
var settingsPath = []string{"spec", "settings"}

// withForeignPaths adds to paths the settings paths of obj that manager does
// not own, so that DP's copy of the applied settings
// (status.lastAppliedConfiguration, which holds every key) and DP's texts
// are stored without their values. The result is not recorded anywhere.
func withForeignPaths(obj *unstructured.Unstructured, manager string, paths []sensitivePath) []sensitivePath {
	own := readOwners(obj, manager)
	if !own.applied {
		return paths
	}
	var p projection
	p.project(obj.Object, own, settingsPath, nil, false)
	return appendForeignPaths(paths, pathsOf(p.leftOut))
}

func pathsOf(ps []ownedPath) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = p.path
	}
	return out
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

// namedFields are the fields a refresh's warning names, each rendered as
// "<attribute path> (<managers>)".
type namedFields struct{ takenOver, leftOut []string }

// add records the fields projection p of attribute name found: every field
// the configuration sets that others took over; of the others' fields it
// left out, those of spec (DP and other tools add labels and annotations
// of their own to every Application: those are left out unnamed).
func (nf *namedFields) add(name string, a attribute, p projection) {
	render := func(f ownedPath) string {
		return displayPath(name, a, f.path) + " (" + strings.Join(f.managers, ", ") + ")"
	}
	for _, f := range p.takenOver {
		nf.takenOver = append(nf.takenOver, render(f))
	}
	if a.dp != dpSpec {
		return
	}
	for _, f := range p.leftOut {
		if len(f.managers) > 0 {
			nf.leftOut = append(nf.leftOut, render(f))
		}
	}
}

// displayPath is the attribute path of a field the projection found below
// attribute name: settings.auth.password, labels["team"],
// update.block_on_alerts.severity, resource_requests[kind="Deployment",name="web"].replicas.
func displayPath(name string, a attribute, path []string) string {
	var b strings.Builder
	b.WriteString(name)
	for _, step := range path {
		switch {
		case strings.HasPrefix(step, "["):
			b.WriteString(step)
		case a.dp == dpMetadata:
			fmt.Fprintf(&b, "[%q]", step)
		case a.spec != nil:
			b.WriteString("." + snakeName(step))
		default:
			b.WriteString("." + step)
		}
	}
	return b.String()
}

// snakeName is the Terraform name of DP's JSON name (blockOnAlerts is
// block_on_alerts).
func snakeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ownershipSummary is the summary of the refresh's warning.
const ownershipSummary = "Fields owned by other field managers"

// warning is the refresh's warning naming the fields, with their managers
// and never a value; none when there is nothing to name.
func (nf namedFields) warning(obj *unstructured.Unstructured, manager string) diag.Diagnostics {
	var diags diag.Diagnostics
	if len(nf.takenOver)+len(nf.leftOut) == 0 {
		return diags
	}
	sort.Strings(nf.takenOver)
	sort.Strings(nf.leftOut)
	detail := fmt.Sprintf("Application %s/%s holds fields that field manager %q does not own.", obj.GetNamespace(), obj.GetName(), manager)
	if len(nf.takenOver) > 0 {
		detail += " Set by this configuration and taken over by another field manager, they are read with their value in the " +
			"cluster, so the plan shows the change back; the apply takes them back with force_conflicts = true, or after " +
			"that manager gives them up: " + strings.Join(nf.takenOver, ", ") + "."
	}
	if len(nf.leftOut) > 0 {
		detail += " Not set by this configuration, they are not part of this resource: they cause no difference in the plan " +
			"and their values are neither stored nor shown; the plan checks the settings DP will see, these included: " +
			strings.Join(nf.leftOut, ", ") + "."
	}
	detail += " To manage such a field here, write it into the configuration (the apply then shares or takes its " +
		"ownership); to remove it, use the manager that added it."
	diags.AddWarning(ownershipSummary, detail)
	return diags
}
