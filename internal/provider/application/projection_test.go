package application

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// fieldSetOf is the FieldsV1 set the API server records for a writer of v:
// maps by member, lists whose entries have a kind and a name as a list-map
// (DP's spec.resourceRequests), other lists atomic.
func fieldSetOf(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, c := range v {
			out["f:"+k] = fieldSetOf(c)
		}
		return out
	case []any:
		out := map[string]any{}
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok || m["kind"] == nil || m["name"] == nil {
				return map[string]any{}
			}
			key, _ := json.Marshal(map[string]any{"kind": m["kind"], "name": m["name"]})
			out["k:"+string(key)] = fieldSetOf(m)
		}
		return out
	}
	return map[string]any{}
}

// entryOf is a managedFields entry of manager owning v at path.
func entryOf(manager string, op metav1.ManagedFieldsOperationType, path []string, v any) metav1.ManagedFieldsEntry {
	set := fieldSetOf(v)
	for i := len(path) - 1; i >= 0; i-- {
		set = map[string]any{"f:" + path[i]: set}
	}
	raw, _ := json.Marshal(set)
	return entry(manager, op, string(raw))
}

// Every attribute the apply writes to the Application is read back through
// the one ownership projection, from its entry in the table alone: written
// by another field manager only, it is left out of a state that does not
// set it (and a spec field is named in the warning with its manager), and
// read with the cluster's value into a state that sets it, the warning
// naming the manager that took it over. An attribute read any other way
// (a new spec field with code of its own, or read whole) fails here by name.
func TestProjection_EveryAttributeOfTheApplicationIsReadByOwnership(t *testing.T) {
	full := fullModel()
	settings, _, _ := convert.FromDynamic(full.Settings)
	body := applyConfiguration(&full, settings)
	for _, n := range attributeNames {
		a := attributes[n]
		if (a.dp == dpSpec && n != "sensitive_settings") || a.attrType().Equal(full.Labels.Type(context.Background())) {
			if a.place() == nil {
				t.Errorf("%s is written to the Application but the table gives it no place: a refresh reads it by code of its own", n)
			}
		}
	}
	for _, n := range projected {
		t.Run(n, func(t *testing.T) {
			a := attributes[n]
			obj := &unstructured.Unstructured{Object: body}
			v, ok, _ := unstructured.NestedFieldCopy(body, a.place()...)
			if !ok {
				t.Fatalf("the apply body does not write %s at %v", n, a.place())
			}
			// This manager applied something else; web-ui wrote the attribute.
			obj.SetManagedFields([]metav1.ManagedFieldsEntry{
				entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply, `{"f:metadata":{"f:finalizers":{}}}`),
				entryOf("web-ui", metav1.ManagedFieldsOperationUpdate, a.place(), v),
			})
			refresh := func(prior applicationModel) (applicationModel, string) {
				t.Helper()
				diags := (&Resource{}).fromObject(context.Background(), &prior, obj, providerdata.DefaultFieldManager, func(s string) string { return s })
				if diags.HasError() {
					t.Fatal(diags)
				}
				var text strings.Builder
				for _, d := range diags {
					text.WriteString(d.Summary() + ": " + d.Detail())
				}
				return prior, text.String()
			}

			// Not set by the state: left out.
			unset := full
			unset.set(n, nullValue(a.attrType()))
			got, warning := refresh(unset)
			if v := got.get(n); !v.IsNull() && !isEmptyValue(v) {
				t.Errorf("another manager's %s is read into a state that does not set it: %v", n, v)
			}
			if a.dp == dpSpec && !strings.Contains(warning, n) && !strings.Contains(warning, "(web-ui)") {
				t.Errorf("the warning does not name %s and web-ui: %q", n, warning)
			}

			// Set by the state: read with the cluster's value, the new owner named.
			got, warning = refresh(full)
			if !got.get(n).Equal(full.get(n)) {
				t.Errorf("%s set by the state reads %v, the cluster holds %v", n, got.get(n), full.get(n))
			}
			if !strings.Contains(warning, "taken over") || !strings.Contains(warning, "(web-ui)") {
				t.Errorf("the warning does not name web-ui as the new owner of %s: %q", n, warning)
			}
		})
	}
}

// isEmptyValue reports whether v is an empty map or string (a required
// string reads as "" when the cluster has none for the state).
func isEmptyValue(v interface{ String() string }) bool {
	return v.String() == "{}" || v.String() == `""`
}

// A kubectl patch that changes a settings key the configuration sets makes
// its author the key's owner: the refresh reads the new value (the plan
// shows 2 -> 1, not an added key) and the warning names kubectl-patch.
func TestRefresh_DriftOfAKeyTheConfigurationSetsShowsAndNamesTheNewOwner(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "app", "namespace": "demo"},
		"spec":     map[string]any{"packageName": "demo-app", "settings": map[string]any{"replicas": int64(2), "domain": "a.example.com"}},
	}}
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{
		entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:packageName":{},"f:settings":{"f:domain":{}}}}`),
		entry("kubectl-patch", metav1.ManagedFieldsOperationUpdate, `{"f:spec":{"f:settings":{"f:replicas":{}}}}`),
	})
	m := demoConfig(map[string]any{"replicas": int64(1), "domain": "a.example.com"})
	diags := (&Resource{}).fromObject(context.Background(), &m, obj, providerdata.DefaultFieldManager, func(s string) string { return s })
	if got := mustJSON(t, m.Settings); !jsonvalue.Equal(jsonDecode(t, got), map[string]any{"replicas": 2, "domain": "a.example.com"}) {
		t.Fatalf("settings read as %s, want the cluster's replicas = 2", got)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Detail(), "settings.replicas (kubectl-patch)") || !strings.Contains(diags[0].Detail(), "taken over") {
		t.Fatalf("want one warning naming kubectl-patch as the owner of settings.replicas, got %v", diags)
	}
}

// Typed spec fields go by ownership as settings do: what the DP web
// interface sets beside this configuration (update.mode, release_channel,
// maintenance, another resource_requests entry, a field of this
// configuration's entry) stays out of the state and is named; what the
// configuration sets is read.
func TestRefresh_SpecFieldsOfOtherManagersAreLeftOutAndNamed(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "app", "namespace": "demo"},
		"spec": map[string]any{
			"packageName": "demo-app", "releaseChannel": "Stable", "maintenance": "NoResourceReconciliation",
			"update": map[string]any{"mode": "Manual"},
			"resourceRequests": []any{
				map[string]any{"kind": "Deployment", "name": "web", "replicas": int64(3)},
				map[string]any{"kind": "DaemonSet", "name": "agent"},
			},
		},
	}}
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{
		entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply,
			`{"f:spec":{"f:packageName":{},"f:resourceRequests":{"k:{\"kind\":\"Deployment\",\"name\":\"web\"}":{".":{},"f:kind":{},"f:name":{}}}}}`),
		entry("web-ui", metav1.ManagedFieldsOperationUpdate,
			`{"f:spec":{"f:releaseChannel":{},"f:maintenance":{},"f:update":{".":{},"f:mode":{}},"f:resourceRequests":{`+
				`"k:{\"kind\":\"Deployment\",\"name\":\"web\"}":{"f:replicas":{}},"k:{\"kind\":\"DaemonSet\",\"name\":\"agent\"}":{".":{},"f:kind":{},"f:name":{}}}}}`),
	})
	m := demoConfig(nil)
	m.ResourceRequests = requestsOf(request("Deployment", "web", types.Int64Null()))
	diags := (&Resource{}).fromObject(context.Background(), &m, obj, providerdata.DefaultFieldManager, func(s string) string { return s })
	if !m.Update.IsNull() || !m.ReleaseChannel.IsNull() || !m.Maintenance.IsNull() {
		t.Errorf("another manager's fields are read: update %v, release_channel %v, maintenance %v", m.Update, m.ReleaseChannel, m.Maintenance)
	}
	if want := requestsOf(request("Deployment", "web", types.Int64Null())); !m.ResourceRequests.Equal(want) {
		t.Errorf("resource_requests read as %v, want this configuration's entry alone %v", m.ResourceRequests, want)
	}
	if len(diags) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	for _, s := range []string{"update.mode (web-ui)", "release_channel (web-ui)", "maintenance (web-ui)",
		`resource_requests[kind="DaemonSet",name="agent"] (web-ui)`, `resource_requests[kind="Deployment",name="web"].replicas (web-ui)`} {
		if !strings.Contains(diags[0].Detail(), s) {
			t.Errorf("the warning does not name %s: %s", s, diags[0].Detail())
		}
	}
}

func jsonDecode(t *testing.T, s []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
