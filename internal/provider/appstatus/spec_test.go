package appstatus

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func withSpec(field string, v any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{field: v}}}
}

// The apply body uses DP's JSON names and leaves every null field out, so
// DP's own fallback (or its CRD default) applies to it.
func TestSpecField_BodyUsesDPsNamesAndLeavesNullsOut(t *testing.T) {
	cluster := map[string]any{"windows": []any{map[string]any{"from": "8:00", "to": "9:30"}},
		"blockOnAlerts": map[string]any{"enabled": true}}
	v := UpdateField.Read(withSpec("update", cluster))
	body, ok := UpdateField.Body(v)
	if !ok {
		t.Fatal("a known update is not written")
	}
	got, _ := json.Marshal(body)
	if want := `{"blockOnAlerts":{"enabled":true},"windows":[{"from":"8:00","to":"9:30"}]}`; string(got) != want {
		t.Fatalf("body %s, want %s", got, want)
	}
	if _, ok := UpdateField.Body(UpdateField.Null()); ok {
		t.Fatal("a null update is written")
	}
	rr := ResourceRequestsField.Read(withSpec("resourceRequests", []any{map[string]any{"kind": "Deployment", "name": "web", "replicas": int64(0)}}))
	got, _ = json.Marshal(mustBody(t, ResourceRequestsField, rr))
	if want := `[{"kind":"Deployment","name":"web","replicas":0}]`; string(got) != want {
		t.Fatalf("body %s, want %s", got, want)
	}
}

func mustBody(t *testing.T, f SpecField, v attr.Value) any {
	t.Helper()
	b, ok := f.Body(v)
	if !ok {
		t.Fatal("no body")
	}
	return b
}

// A refresh keeps a field the state left null (or an import, which has no
// state) when the cluster holds the CRD's default for it (mode AutoPatch,
// severity 4), and shows any other value, a changed one included, as drift.
func TestSpecField_ReadKeepsCRDDefaultsOfNullFieldsNull(t *testing.T) {
	prior := UpdateField.Read(withSpec("update", map[string]any{"blockOnAlerts": map[string]any{"enabled": true}}))
	tests := []struct {
		name    string
		cluster map[string]any
		want    string
	}{
		{"defaults the CRD added", map[string]any{"mode": "AutoPatch", "blockOnAlerts": map[string]any{"enabled": true, "severity": int64(4)}},
			`{"block_on_alerts":{"enabled":true,"severity":<null>},"mode":<null>,"windows":<null>}`},
		{"values changed out of band", map[string]any{"mode": "Manual", "blockOnAlerts": map[string]any{"enabled": false, "severity": int64(2)}},
			`{"block_on_alerts":{"enabled":false,"severity":2},"mode":"Manual","windows":<null>}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UpdateField.FromJSON(tt.cluster, prior).String(); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
	// An import or a move has no prior value: the defaults stay null too.
	if got, want := UpdateField.FromJSON(map[string]any{"mode": "AutoPatch"}, UpdateField.Null()).String(),
		`{"block_on_alerts":<null>,"mode":<null>,"windows":<null>}`; got != want {
		t.Fatalf("an imported update with the default mode reads %s, want %s", got, want)
	}
	// The data sources show the object as it is.
	if got := UpdateField.Read(withSpec("update", map[string]any{"mode": "AutoPatch"})).String(); !strings.Contains(got, `"mode":"AutoPatch"`) {
		t.Fatalf("the data sources read %s", got)
	}
	if got := UpdateField.FromJSON(nil, prior); !got.IsNull() {
		t.Fatalf("an update removed out of band reads %s, want null", got)
	}
}

// A quantity written as a number (int-or-string) reads back as a string.
func TestSpecField_ReadQuantityNumbersAsStrings(t *testing.T) {
	v := ResourceRequestsField.Read(withSpec("resourceRequests", []any{map[string]any{"kind": "Pod", "name": "p",
		"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"requests": map[string]any{"cpu": int64(2), "memory": 1.5}}}}}}))
	if s := v.String(); !strings.Contains(s, `"cpu":"2"`) || !strings.Contains(s, `"memory":"1.5"`) {
		t.Fatalf("got %s", s)
	}
}

func requests(t *testing.T, entries ...map[string]any) types.List {
	t.Helper()
	l := make([]any, len(entries))
	for i, e := range entries {
		l[i] = e
	}
	return ResourceRequestsField.Read(withSpec("resourceRequests", l)).(types.List)
}

// kind + name identify an entry (DP's list-map keys), and replicas is
// allowed only for Deployment, StatefulSet and ReplicaSet; each diagnostic
// names the entry's attribute path.
func TestValidateResourceRequests_UniqueKindAndNameReplicasOnlyForScalableKinds(t *testing.T) {
	tests := []struct {
		name    string
		list    types.List
		wantAt  []string
		wantMsg string
	}{
		{"distinct entries", requests(t, map[string]any{"kind": "Deployment", "name": "web", "replicas": int64(2)},
			map[string]any{"kind": "StatefulSet", "name": "web", "replicas": int64(0)}, map[string]any{"kind": "ReplicaSet", "name": "rs", "replicas": int64(1)},
			map[string]any{"kind": "DaemonSet", "name": "agent"}), nil, ""},
		{"same kind and name twice", requests(t, map[string]any{"kind": "Deployment", "name": "web"}, map[string]any{"kind": "Deployment", "name": "web"}),
			[]string{"resource_requests[1]"}, "both set kind"},
		{"replicas of a DaemonSet", requests(t, map[string]any{"kind": "DaemonSet", "name": "agent", "replicas": int64(1)}),
			[]string{"resource_requests[0].replicas"}, "allows replicas only for Deployment, StatefulSet, ReplicaSet"},
		{"replicas of a Job", requests(t, map[string]any{"kind": "Job", "name": "migrate", "replicas": int64(0)}),
			[]string{"resource_requests[0].replicas"}, "allows replicas only"},
		{"null list", types.ListNull(ResourceRequestsType.(types.ListType).ElemType), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := ValidateResourceRequests(context.Background(), tt.list, path.Root("resource_requests"))
			if len(diags) != len(tt.wantAt) {
				t.Fatalf("diagnostics %v, want at %v", diags, tt.wantAt)
			}
			for i, d := range diags {
				dp, ok := d.(interface{ Path() path.Path })
				if !ok || dp.Path().String() != tt.wantAt[i] || !strings.Contains(d.Detail(), tt.wantMsg) {
					t.Fatalf("diagnostic %v, want at %s saying %q", d, tt.wantAt[i], tt.wantMsg)
				}
			}
		})
	}
}

// A window's from and to match DP's pattern: UTC H:MM or HH:MM.
func TestWindowTime_DPsPattern(t *testing.T) {
	for s, ok := range map[string]bool{"0:00": true, "8:00": true, "08:05": true, "23:59": true, "24:00": false, "8:0": false,
		"8:60": false, "123:00": false, "": false, "08:00:00": false} {
		var resp validator.StringResponse
		windowTimeValidator().ValidateString(context.Background(), validator.StringRequest{Path: path.Root("from"), ConfigValue: types.StringValue(s)}, &resp)
		if got := !resp.Diagnostics.HasError(); got != ok {
			t.Errorf("%q: valid = %v, want %v", s, got, ok)
		}
	}
}

// Limits and requests are Kubernetes quantities.
func TestQuantityValidator_KubernetesQuantities(t *testing.T) {
	for s, ok := range map[string]bool{"500m": true, "2": true, "128Mi": true, "1Gi": true, "1.5": true, "lots": false, "1GB": false, "": false} {
		var resp validator.StringResponse
		quantityValidator{}.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("cpu"), ConfigValue: types.StringValue(s)}, &resp)
		if got := !resp.Diagnostics.HasError(); got != ok {
			t.Errorf("%q: valid = %v, want %v", s, got, ok)
		}
	}
}
