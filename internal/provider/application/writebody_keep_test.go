package application

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// appWithSettings is Application demo/app with settings and managedFields.
func appWithSettings(spec map[string]any, entries ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "app", "namespace": "demo"},
		"spec":     spec,
	}}
	obj.SetManagedFields(entries)
	return obj
}

// An apply never removes what another manager owns: a map (or a
// resource_requests entry) this manager applied before and the
// configuration no longer writes is kept in the apply body, empty (the
// entry as its keys), when another manager wrote fields in it, which
// server-side apply would otherwise remove with it (kubectl edit's key
// under podLabels); without others' fields it is left to go.
func TestKeepContainers_AMapHoldingAnotherManagersKeysStays(t *testing.T) {
	mine := entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply,
		`{"f:spec":{"f:settings":{"f:replicas":{},"f:podLabels":{"f:team":{}},"f:auth":{"f:user":{}}},`+
			`"f:resourceRequests":{"k:{\"kind\":\"Deployment\",\"name\":\"web\"}":{".":{},"f:kind":{},"f:name":{},"f:replicas":{}}}}}`)
	edit := entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate,
		`{"f:spec":{"f:settings":{"f:podLabels":{"f:owner":{}}},`+
			`"f:resourceRequests":{"k:{\"kind\":\"Deployment\",\"name\":\"web\"}":{"f:containers":{}}}}}`)
	obj := appWithSettings(map[string]any{
		"settings": map[string]any{"replicas": int64(1), "podLabels": map[string]any{"team": "a", "owner": "x"}, "auth": map[string]any{"user": "u"}},
		"resourceRequests": []any{map[string]any{"kind": "Deployment", "name": "web", "replicas": int64(2),
			"containers": []any{map[string]any{"name": "app"}}}},
	}, mine, edit)
	body := map[string]any{"spec": map[string]any{"packageName": "demo-app", "settings": map[string]any{"replicas": int64(1)}}}
	keepContainers(body, obj, providerdata.DefaultFieldManager)
	want := map[string]any{"spec": map[string]any{"packageName": "demo-app",
		"settings":         map[string]any{"replicas": int64(1), "podLabels": map[string]any{}},
		"resourceRequests": []any{map[string]any{"kind": "Deployment", "name": "web"}},
	}}
	if !jsonvalue.Equal(body, want) {
		t.Fatalf("apply body %v, want %v", body, want)
	}
	// The kept map is not this configuration's: a refresh leaves it out.
	m := demoConfig(map[string]any{"replicas": int64(1)})
	kept := appWithSettings(map[string]any{"settings": map[string]any{"replicas": int64(1), "podLabels": map[string]any{"owner": "x"}}},
		entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:settings":{"f:replicas":{},"f:podLabels":{}}}}`), edit)
	if diags := (&Resource{}).fromObject(t.Context(), &m, kept, providerdata.DefaultFieldManager, func(s string) string { return s }); diags.HasError() {
		t.Fatal(diags)
	}
	if got := string(mustJSON(t, m.Settings)); got != `{"replicas":1}` {
		t.Fatalf("settings after the kept map read as %s", got)
	}
}

// settings = {} (or a map of it emptied) after an apply that wrote keys:
// server-side apply would store the emptied map as null, which the API
// server refuses for spec.settings; the keys this manager alone owns are
// removed before the apply instead. A map left out goes whole (no null), and
// a map that keeps another manager's key, or a key nobody applied, is not
// emptied. A map that keeps
// another manager's key, or a key nobody applied, is not emptied.
func TestEmptiedFields_AMapTheApplyWouldEmptyIsEmptiedBeforeIt(t *testing.T) {
	mine := entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply,
		`{"f:spec":{"f:packageName":{},"f:settings":{"f:replicas":{},"f:auth":{"f:user":{}}}}}`)
	spec := func() map[string]any {
		return map[string]any{"packageName": "demo-app", "settings": map[string]any{"replicas": int64(2), "auth": map[string]any{"user": "u"}}}
	}
	tests := []struct {
		name     string
		settings any // nil: not written
		others   []metav1.ManagedFieldsEntry
		want     []string
	}{
		{name: "settings = {}", settings: map[string]any{}, want: []string{"spec.settings.auth", "spec.settings.replicas"}},
		{name: "settings left out (it goes whole)"},
		{name: "auth = {}", settings: map[string]any{"replicas": int64(2), "auth": map[string]any{}}, want: []string{"spec.settings.auth.user"}},
		{name: "another manager's key stays", settings: map[string]any{},
			others: []metav1.ManagedFieldsEntry{entry("web-ui", metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:settings":{"f:auth":{"f:user":{}}}}}`)}},
		{name: "auth left out (it goes whole)", settings: map[string]any{"replicas": int64(3)}},
		{name: "keys kept", settings: map[string]any{"replicas": int64(3), "auth": map[string]any{"user": "v"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := appWithSettings(spec(), append([]metav1.ManagedFieldsEntry{mine}, tt.others...)...)
			body := map[string]any{"spec": map[string]any{"packageName": "demo-app"}}
			if tt.settings != nil {
				body["spec"].(map[string]any)["settings"] = tt.settings
			}
			var got []string
			for _, f := range emptiedFields(body, obj, providerdata.DefaultFieldManager) {
				got = append(got, strings.Join(f.Path, "."))
			}
			if strings.Join(sorted(got), " ") != strings.Join(tt.want, " ") {
				t.Fatalf("removed first %v, want %v", got, tt.want)
			}
		})
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// An update from settings that wrote a key to settings = {} removes the key
// with a JSON patch (test, then remove) before the server-side apply, which
// then writes an empty object: sent as one apply alone, the API server
// refuses it ("spec.settings in body must be of type object: null").
func TestUpdate_EmptySettingsRemovesTheKeysBeforeTheApply(t *testing.T) {
	h := newHarness(t)
	created := h.planAndApply(nil, nil, demoConfig(map[string]any{"replicas": int64(2)}))
	if created.apply == nil || hasError(created.apply.Diagnostics) {
		t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
	}
	before := len(h.dp.Requests())
	updated := h.planAndApply(created.state, created.private, demoConfig(map[string]any{}))
	if updated.apply == nil || hasError(updated.apply.Diagnostics) {
		t.Fatalf("update to settings = {}: %s%s", diagText(updated.plan.Diagnostics), diagText(updated.apply.Diagnostics))
	}
	var patches []string
	for _, r := range h.dp.Requests()[before:] {
		if r.Method == "PATCH" {
			patches = append(patches, r.ContentType)
		}
	}
	if strings.Join(patches, " ") != "application/json-patch+json application/apply-patch+yaml" {
		t.Fatalf("the update sent %v, want a JSON patch, then the server-side apply", patches)
	}
	if got, _ := h.dp.app("app")["spec"].(map[string]any)["settings"]; !jsonvalue.Equal(got, map[string]any{}) {
		t.Fatalf("spec.settings = %v, want {}", got)
	}
}

// An update that stops writing a map another writer added a key under
// (kubectl edit: an Update entry) keeps the map in the apply body, empty,
// so server-side apply does not remove it with the other key in it.
func TestUpdate_DroppedMapHoldingAnotherWritersKeyIsKept(t *testing.T) {
	h := newHarness(t)
	created := h.planAndApply(nil, nil, demoConfig(map[string]any{"replicas": int64(2), "auth": map[string]any{"user": "ops"}}))
	if created.apply == nil || hasError(created.apply.Diagnostics) {
		t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
	}
	h.dp.editApp("app", func(md, obj map[string]any) {
		obj["spec"].(map[string]any)["settings"].(map[string]any)["auth"].(map[string]any)["password"] = "edit-s3cret"
		md["managedFields"] = append(md["managedFields"].([]any), map[string]any{"manager": "kubectl-edit", "operation": "Update",
			"apiVersion": "deckhouse.io/v1alpha1", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:settings": map[string]any{"f:auth": map[string]any{"f:password": map[string]any{}}}}}})
	})
	before := len(h.dp.Requests())
	updated := h.planAndApply(created.state, created.private, demoConfig(map[string]any{"replicas": int64(2)}))
	if updated.apply == nil || hasError(updated.apply.Diagnostics) {
		t.Fatalf("update: %s", diagText(updated.plan.Diagnostics))
	}
	var applied string
	for _, r := range h.dp.Requests()[before:] {
		if r.Method == "PATCH" && r.ContentType == "application/apply-patch+yaml" {
			applied = r.Body
		}
	}
	if !strings.Contains(applied, `"settings":{"auth":{},"replicas":2}`) {
		t.Fatalf("the apply body does not keep auth: %s", applied)
	}
	if strings.Contains(applied, "edit-s3cret") {
		t.Fatal("the apply body holds kubectl edit's value")
	}
}
