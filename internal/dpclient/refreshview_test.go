package dpclient

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A snapshot keeps of an Application what refreshes read: the apply entries
// of managedFields (any manager's: a resource may name its own), the update
// entries that own settings (the refresh names their managers) and the
// status fields the resource and the data source show.
func TestRefreshView_KeepsApplyEntriesSettingsOwnersAndTheStatusRefreshesRead(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "a", "namespace": "n", "resourceVersion": "7", "uid": "u"},
		"spec":     map[string]any{"settings": map[string]any{"replicas": int64(2)}},
		"status": map[string]any{
			"summary": map[string]any{"state": "Ready"}, "currentVersion": map[string]any{"version": "v1"},
			"urls": []any{}, "conditions": []any{}, "lastAppliedConfiguration": map[string]any{},
			"resources": []any{map[string]any{"kind": "Deployment"}}, "internal": "x",
		},
	}}
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: "terraform", Operation: metav1.ManagedFieldsOperationApply},
		{Manager: "controller", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"},
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply},
		{Manager: "kubectl-create", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:settings":{".":{},"f:replicas":{}}}}`)},
		{Manager: "kubectl-label", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:team":{}}}}`)},
	})
	got := refreshView(obj)
	var managers []string
	for _, mf := range got.GetManagedFields() {
		managers = append(managers, mf.Manager)
	}
	if len(managers) != 3 || managers[0] != "terraform" || managers[1] != "kubectl" || managers[2] != "kubectl-create" {
		t.Errorf("managedFields of %v, want terraform, kubectl and kubectl-create", managers)
	}
	status, _, _ := unstructured.NestedMap(got.Object, "status")
	if len(status) != len(refreshStatusFields) {
		t.Errorf("status keeps %v", status)
	}
	if got.GetResourceVersion() != "7" || got.GetUID() != "u" {
		t.Error("metadata changed")
	}
	if _, ok, _ := unstructured.NestedMap(got.Object, "spec", "settings"); !ok {
		t.Error("spec changed")
	}
}
