package application

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// sampleOf is a known, non-null value of type t: every attribute and
// element set.
func sampleOf(t attr.Type) attr.Value {
	switch t := t.(type) {
	case types.ObjectType:
		attrs := map[string]attr.Value{}
		for n, at := range t.AttrTypes {
			attrs[n] = sampleOf(at)
		}
		return types.ObjectValueMust(t.AttrTypes, attrs)
	case types.ListType:
		return types.ListValueMust(t.ElemType, []attr.Value{sampleOf(t.ElemType)})
	case types.MapType:
		return types.MapValueMust(t.ElemType, map[string]attr.Value{"k": sampleOf(t.ElemType)})
	case timeouts.Type:
		o := sampleOf(t.ObjectType).(types.Object)
		return timeouts.Value{Object: o}
	}
	switch t {
	case types.StringType:
		return types.StringValue("1")
	case types.Int64Type:
		return types.Int64Value(1)
	case types.BoolType:
		return types.BoolValue(true)
	case types.DynamicType:
		return convert.ToDynamic(map[string]any{"other": int64(1)})
	}
	panic("no sample of " + t.String())
}

// otherThan is a known, non-null value of v's type that differs from v.
func otherThan(v attr.Value) attr.Value {
	ctx := context.Background()
	s := sampleOf(v.Type(ctx))
	if !s.Equal(v) {
		return s
	}
	switch v.(type) {
	case types.Bool:
		return types.BoolValue(false)
	case types.String:
		return types.StringValue("2")
	}
	return nullValue(v.Type(ctx))
}

// sampleUpdate is an update attribute with every field set.
func sampleUpdate() types.Object {
	window := types.ObjectValueMust(windowType().AttrTypes, map[string]attr.Value{
		"from": types.StringValue("8:00"), "to": types.StringValue("15:30"),
		"days": types.ListValueMust(types.StringType, []attr.Value{types.StringValue("Mon"), types.StringValue("Sat")}),
	})
	ut := updateType()
	return types.ObjectValueMust(ut.AttrTypes, map[string]attr.Value{
		"mode":    types.StringValue("Manual"),
		"windows": types.ListValueMust(windowType(), []attr.Value{window}),
		"block_on_alerts": types.ObjectValueMust(ut.AttrTypes["block_on_alerts"].(types.ObjectType).AttrTypes, map[string]attr.Value{
			"enabled": types.BoolValue(true), "severity": types.Int64Value(2),
		}),
	})
}

// updateWith is an update attribute with only field set.
func updateWith(field string, v attr.Value) types.Object {
	ut := updateType()
	attrs := map[string]attr.Value{}
	for n, t := range ut.AttrTypes {
		attrs[n] = nullValue(t)
	}
	attrs[field] = v
	return types.ObjectValueMust(ut.AttrTypes, attrs)
}

func updateType() types.ObjectType { return appstatus.UpdateType.(types.ObjectType) }

func windowType() types.ObjectType {
	return updateType().AttrTypes["windows"].(types.ListType).ElemType.(types.ObjectType)
}

func requestType() types.ObjectType {
	return appstatus.ResourceRequestsType.(types.ListType).ElemType.(types.ObjectType)
}

// request is a resource_requests entry without containers.
func request(kind, name string, replicas types.Int64) types.Object {
	rt := requestType()
	return types.ObjectValueMust(rt.AttrTypes, map[string]attr.Value{
		"kind": types.StringValue(kind), "name": types.StringValue(name), "replicas": replicas,
		"containers": types.ListNull(rt.AttrTypes["containers"].(types.ListType).ElemType),
	})
}

func requestsOf(entries ...types.Object) types.List {
	elems := make([]attr.Value, len(entries))
	for i, e := range entries {
		elems[i] = e
	}
	return types.ListValueMust(requestType(), elems)
}

// sampleResourceRequests is a resource_requests attribute with every field
// set: a Deployment with replicas and a container's limits and requests.
func sampleResourceRequests() types.List {
	rt := requestType()
	ct := rt.AttrTypes["containers"].(types.ListType).ElemType.(types.ObjectType)
	resT := ct.AttrTypes["resources"].(types.ObjectType)
	quantities := func(kv ...string) types.Map {
		m := map[string]attr.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = types.StringValue(kv[i+1])
		}
		return types.MapValueMust(types.StringType, m)
	}
	container := types.ObjectValueMust(ct.AttrTypes, map[string]attr.Value{
		"name": types.StringValue("app"),
		"resources": types.ObjectValueMust(resT.AttrTypes, map[string]attr.Value{
			"limits": quantities("cpu", "500m", "memory", "256Mi"), "requests": quantities("memory", "128Mi"),
		}),
	})
	web := types.ObjectValueMust(rt.AttrTypes, map[string]attr.Value{
		"kind": types.StringValue("Deployment"), "name": types.StringValue("web"), "replicas": types.Int64Value(3),
		"containers": types.ListValueMust(ct, []attr.Value{container}),
	})
	return requestsOf(web, request("DaemonSet", "agent", types.Int64Null()))
}

// The table, the schema and the model name the same attributes: an
// attribute added to one and not the others fails here by name. TestMain
// runs only this test and the resource page's when tableGaps finds a gap,
// so no other test panics on the missing field first.
func TestAttributeFacts_CoverTheSchema(t *testing.T) {
	for _, gap := range tableGaps() {
		t.Error(gap)
	}
}

// tableGaps names each place an attribute of the table, of the schema, of
// appstatus.SpecFields or of applicationModel is missing from.
func tableGaps() []string {
	var gaps []string
	sch, _, _ := resourceTypes()
	inSchema := map[string]bool{}
	for n := range sch.Attributes {
		inSchema[n] = true
	}
	for n := range sch.Blocks {
		inSchema[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(inSchema)) {
		if _, ok := attributes[n]; !ok {
			gaps = append(gaps, fmt.Sprintf("schema attribute %s has no entry in the table of attribute facts (attributes.go)", n))
		}
	}
	for _, n := range attributeNames {
		a := attributes[n]
		if !inSchema[n] {
			gaps = append(gaps, fmt.Sprintf("the table names %s, which the schema lacks", n))
		}
		if (a.schema == nil) == (a.block == nil) {
			gaps = append(gaps, fmt.Sprintf("%s: an entry has either a schema attribute or a block", n))
		}
		if _, ok := modelFields()[n]; !ok {
			gaps = append(gaps, fmt.Sprintf("%s has no field in applicationModel (model.go)", n))
		}
		if a.spec != nil && a.dp != dpSpec {
			gaps = append(gaps, fmt.Sprintf("%s is written to spec but its facts say DP sees it in %v", n, a.dp))
		}
		if a.spec != nil && !a.attrType().Equal(a.spec.Type) {
			gaps = append(gaps, fmt.Sprintf("%s: the resource's schema type %s is not that of appstatus.SpecFields, %s", n, a.attrType(), a.spec.Type))
		}
		if a.dp != dpNeither && a.change == changeNone && !a.schema.IsWriteOnly() {
			gaps = append(gaps, fmt.Sprintf("%s: DP sees it, but a change of it writes nothing", n))
		}
	}
	for _, tag := range slices.Sorted(maps.Keys(modelFields())) {
		if !inSchema[tag] {
			gaps = append(gaps, fmt.Sprintf("applicationModel field %s is not in the schema", tag))
		}
	}
	return gaps
}

// fullModel is appState with every attribute that has no value there set
// to a sample, so each attribute the apply writes is written.
func fullModel() applicationModel {
	m := appState()
	for _, n := range attributeNames {
		a := attributes[n]
		if a.block == nil && m.get(n).IsNull() && !a.schema.IsWriteOnly() {
			m.set(n, sampleOf(a.attrType()))
		}
	}
	m.Update, m.ResourceRequests = sampleUpdate(), sampleResourceRequests()
	return m
}

// Every attribute DP sees in spec is written by the apply and read back by
// a refresh, both into a state that had it and into an imported one (which
// had nothing).
func TestAttributeFacts_SpecAttributesAreWrittenAndReadBack(t *testing.T) {
	full := fullModel()
	settings := map[string]any{"replicas": int64(2)}
	for _, n := range namesWhere(func(a attribute) bool { return a.dp == dpSpec }) {
		if n == "settings" || n == "sensitive_settings" {
			continue // written from the merged settings: TestSensitivePaths_* and the write tests
		}
		t.Run(n, func(t *testing.T) {
			without := full
			without.set(n, nullValue(attributes[n].attrType()))
			if jsonvalue.Equal(applyConfiguration(&full, settings), applyConfiguration(&without, settings)) {
				t.Fatalf("the apply body does not write %s (writeSpecFields, or applyConfiguration in writebody.go)", n)
			}
			obj := &unstructured.Unstructured{Object: newFakeDP(t).apply("app", applyConfiguration(&full, settings))}
			r := &Resource{}
			for name, prior := range map[string]applicationModel{"state": full, "import": importedModel("demo", "app")} {
				m := prior
				if diags := r.fromObject(context.Background(), &m, obj, providerdata.DefaultFieldManager, func(s string) string { return s }); diags.HasError() {
					t.Fatal(diags)
				}
				if !m.get(n).Equal(full.get(n)) {
					t.Errorf("a refresh of the %s reads %s as %v, written %v (readProjected, or fromObject in read.go)", name, n, m.get(n), full.get(n))
				}
			}
		})
	}
}

// A refresh of an imported Application fills exactly the attributes the
// table says it fills; the others keep the import's default (or null).
func TestAttributeFacts_RefreshFillsWhatTheTableSays(t *testing.T) {
	full := fullModel()
	full.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("a")})
	obj := &unstructured.Unstructured{Object: newFakeDP(t).apply("app", applyConfiguration(&full, map[string]any{"replicas": int64(2)}))}
	imported := importedModel("demo", "app")
	m := imported
	m.ID, m.Name, m.Namespace = types.StringNull(), types.StringNull(), types.StringNull()
	// The refresh manages the keys the state had (others' are not).
	m.Labels = types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("")})
	m.Annotations = types.MapValueMust(types.StringType, map[string]attr.Value{"k": types.StringValue("")})
	imported = m
	// DP's record is stored once: as effective_settings when DP applied the
	// current generation, as last_applied_settings when it is of an earlier
	// one (lastAppliedStored). A refresh fills an attribute when it does so
	// in either case.
	behind := obj.DeepCopy()
	behind.SetGeneration(obj.GetGeneration() + 1)
	filled := map[string]bool{}
	for _, o := range []*unstructured.Unstructured{obj, behind} {
		m := imported
		if diags := (&Resource{}).fromObject(context.Background(), &m, o, providerdata.DefaultFieldManager, func(s string) string { return s }); diags.HasError() {
			t.Fatal(diags)
		}
		for _, n := range attributeNames {
			filled[n] = filled[n] || !m.get(n).Equal(imported.get(n))
		}
	}
	for _, n := range attributeNames {
		filled := filled[n]
		if filled != attributes[n].refresh {
			t.Errorf("%s: a refresh fills it = %v, the table says %v", n, filled, attributes[n].refresh)
		}
	}
}

// An import (ImportState), a list result and a move all start from
// importedModel: each attribute at its schema default, else null, but the
// identity.
func TestAttributeFacts_ImportStartsFromTheDefaults(t *testing.T) {
	h := newHarness(t)
	resp, err := h.srv.ImportResourceState(context.Background(), &tfprotov6.ImportResourceStateRequest{TypeName: TypeName, ID: "demo/app"})
	if err != nil || hasError(resp.Diagnostics) || len(resp.ImportedResources) != 1 {
		t.Fatalf("import: %v %s", err, diagText(resp.Diagnostics))
	}
	got := h.model(resp.ImportedResources[0].State)
	identity := map[string]attr.Value{"id": types.StringValue("demo/app"), "namespace": types.StringValue("demo"), "name": types.StringValue("app")}
	for _, n := range attributeNames {
		want := identity[n]
		if want == nil {
			want = attributes[n].defaultValue()
		}
		if want == nil {
			want = nullValue(attributes[n].attrType())
		}
		if !got.get(n).Equal(want) {
			t.Errorf("import sets %s to %v, want %v", n, got.get(n), want)
		}
	}
}

// A move from kubernetes_manifest carries what the table says: the
// attributes read from the manifest's object as a refresh reads them, the
// others at their default or null (no value of spec.settings).
func TestAttributeFacts_MoveCarriesWhatTheTableSays(t *testing.T) {
	ctx := context.Background()
	full := fullModel()
	obj := newFakeDP(t).apply("app", applyConfiguration(&full, map[string]any{"password": "s3cret"}))
	raw, _ := json.Marshal(map[string]any{"object": obj, "manifest": obj})
	h := newHarness(t)
	resp, err := h.srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
		SourceTypeName: "kubernetes_manifest", SourceProviderAddress: "registry.terraform.io/hashicorp/kubernetes",
		SourceState: &tfprotov6.RawState{JSON: raw}, TargetTypeName: TypeName,
	})
	if err != nil || hasError(resp.Diagnostics) {
		t.Fatalf("move: %v %s", err, diagText(resp.Diagnostics))
	}
	got := h.model(resp.TargetState)
	refreshed := importedModel("demo", "app")
	if diags := (&Resource{}).fromObject(ctx, &refreshed, &unstructured.Unstructured{Object: obj}, providerdata.DefaultFieldManager, func(s string) string { return s }); diags.HasError() {
		t.Fatal(diags)
	}
	for _, n := range attributeNames {
		a := attributes[n]
		want := refreshed.get(n)
		if a.manifest == manifestNotCarried || a.manifest == manifestNull {
			if want = a.defaultValue(); want == nil {
				want = nullValue(a.attrType())
			}
		}
		if !got.get(n).Equal(want) {
			t.Errorf("a move sets %s to %v, want %v (manifest carry %v)", n, got.get(n), want, a.manifest)
		}
	}
	if strings.Contains(string(mustJSON(t, got.Settings)), "s3cret") {
		t.Fatal("a move carried a settings value")
	}
}

func mustJSON(t *testing.T, v attr.Value) []byte {
	t.Helper()
	d, _, err := convert.FromDynamic(v.(types.Dynamic))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	return b
}

// A delete reads of the state only what deleteReads names: the delete of a
// state decoded with only those attributes sends the same requests and ends
// the same way as the delete of a whole state, whatever any other attribute
// holds (an Application a finalizer holds makes a delete that waits time out).
func TestAttributeFacts_DeleteReadsWhatDeleteReads(t *testing.T) {
	ctx := context.Background()
	o, err := modelObject()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	t.Cleanup(h.dp.CloseClientConnections) // the waits' watches stay open
	h.dp.KeepOnDelete(true)                // a finalizer holds it: a delete that waits times out
	deleteWith := func(state applicationModel) []string {
		h.dp.Reset() // the same generation and resourceVersion every time, no request yet
		h.dp.apply("app", applyConfiguration(&state, nil))
		// A client of its own, whose wait shares nothing with the others'.
		data := &providerdata.Data{FieldManager: h.p.data.FieldManager, RequestTimeout: h.p.data.RequestTimeout, Conn: h.p.data.Conn}
		diags := (&Resource{data: data}).deleteApp(ctx, &state, privateState{UID: "uid-app"})
		// Whether the wait's watch starts within the short timeout depends
		// on the machine's load, not on the state: it is left out.
		sent := slices.DeleteFunc(h.dp.allRequests(), func(r string) bool { return strings.Contains(r, "watch=true") })
		return append(sent, fmt.Sprint(diags))
	}
	base := fullModel()
	base.Timeouts = withDeleteTimeout("150ms")
	encoded, err := o.Encode(ctx, &base)
	if err != nil {
		t.Fatal(err)
	}
	var only applicationModel
	if err := o.DecodeOnly(ctx, encoded, &only, deleteReads...); err != nil {
		t.Fatal(err)
	}
	want := deleteWith(only)
	for _, n := range attributeNames {
		if attributes[n].deleteReads {
			continue
		}
		t.Run(n, func(t *testing.T) {
			for _, v := range []attr.Value{otherThan(base.get(n)), nullValue(attributes[n].attrType())} {
				state := base
				state.set(n, v)
				if got := deleteWith(state); !slices.Equal(got, want) {
					t.Fatalf("with %s = %v the delete sends %q, with only deleteReads decoded %q: the delete reads %s, which deleteReads (the table's deleteReads facts) lacks",
						n, v, got, want, n)
				}
			}
		})
	}
}

// ReadUnchanged reads of the state's top-level strings only those the
// table names: given just those it answers as given every one, and
// leaving out any other changes nothing.
func TestAttributeFacts_ReadUnchangedReadsWhatTheTableSays(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	st := appState()
	st.FieldManager = types.StringValue("team-a")
	h.dp.apply("app", applyConfiguration(&st, nil))
	h.p.data.FieldManager = "another"
	r := &Resource{data: h.p.data}
	strs := map[string]string{}
	for _, n := range attributeNames {
		if s, ok := st.get(n).(types.String); ok && !s.IsNull() {
			strs[n] = s.ValueString()
		}
	}
	app := h.dp.app("app")
	md := app["metadata"].(map[string]any)
	private := privateState{UID: md["uid"].(string), ResourceVersion: md["resourceVersion"].(string), Recorded: true}.encode()
	_, _, _, wantOK := r.ReadUnchanged(ctx, strs, private)
	if !wantOK {
		t.Fatal("ReadUnchanged declines an unchanged Application")
	}
	subset := map[string]string{}
	for _, n := range readUnchangedReads {
		if v, ok := strs[n]; ok {
			subset[n] = v
		}
	}
	if _, _, _, ok := r.ReadUnchanged(ctx, subset, private); ok != wantOK {
		t.Fatalf("given only %v ReadUnchanged answers %v, given every string %v", readUnchangedReads, ok, wantOK)
	}
	for n := range strs {
		if slices.Contains(readUnchangedReads, n) {
			continue
		}
		less := maps.Clone(strs)
		delete(less, n)
		if _, _, _, ok := r.ReadUnchanged(ctx, less, private); ok != wantOK {
			t.Errorf("without %s ReadUnchanged answers %v: it reads %s, which the table's readUnchanged facts lack", n, ok, n)
		}
	}
	for _, n := range readUnchangedReads {
		less := maps.Clone(strs)
		delete(less, n)
		if _, _, _, ok := r.ReadUnchanged(ctx, less, private); ok == wantOK {
			t.Errorf("without %s ReadUnchanged answers as with it: the table says it reads %s", n, n)
		}
	}
}

// copyComputed keeps every value the schema computes without a default
// when the plan leaves it unknown, and leaves the arguments alone.
func TestAttributeFacts_CopyComputedKeepsTheComputedValues(t *testing.T) {
	state := fullModel()
	plan := state
	for _, n := range attributeNames {
		plan.set(n, unknownLike(state.get(n)))
	}
	copyComputed(&plan, &state)
	for _, n := range attributeNames {
		a := attributes[n]
		kept := plan.get(n).Equal(state.get(n))
		if want := a.computed() && a.defaultValue() == nil; kept != want {
			t.Errorf("%s: copyComputed keeps it = %v, want %v", n, kept, want)
		}
	}
}

func withDeleteTimeout(d string) timeouts.Value {
	return timeouts.Value{Object: types.ObjectValueMust(
		map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
		map[string]attr.Value{"create": types.StringNull(), "update": types.StringNull(), "delete": types.StringValue(d)})}
}
