package application

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func managedObject(entries ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "team-a"},
		"spec": map[string]any{"settings": map[string]any{
			"replicas": int64(2),
			"auth":     map[string]any{"user": "admin", "password": "FOREIGN-SECRET"},
			"domain":   "web.example.com",
		}},
	}}
	obj.SetManagedFields(entries)
	return obj
}

func entry(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

// TestOwnedSettings_KeysOfOtherManagersLeaveTheStateAndAreNamedWithoutValues:
// the refresh keeps the keys this manager applied (nested ones included),
// leaves out those only others own, and warns naming each foreign path with
// its managers and no value; an Application this manager never applied
// keeps every key.
func TestOwnedSettings_KeysOfOtherManagersLeaveTheStateAndAreNamedWithoutValues(t *testing.T) {
	t.Parallel()
	mine := entry("terraform-provider-deckhouse", metav1.ManagedFieldsOperationApply,
		`{"f:spec":{"f:settings":{".":{},"f:replicas":{},"f:auth":{"f:user":{}}}}}`)
	webUI := entry("web-ui", metav1.ManagedFieldsOperationUpdate,
		`{"f:spec":{"f:settings":{"f:domain":{},"f:auth":{"f:password":{}}}}}`)

	obj := managedObject(mine, webUI)
	settings, _, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings")
	got, diags := ownedSettings(obj, "terraform-provider-deckhouse", settings)
	want := map[string]any{"replicas": int64(2), "auth": map[string]any{"user": "admin"}}
	if !jsonEqual(got, want) {
		t.Fatalf("owned settings %v, want %v", got, want)
	}
	if len(diags) != 1 || diags.HasError() {
		t.Fatalf("want one warning, got %v", diags)
	}
	detail := diags[0].Detail()
	for _, s := range []string{"settings.auth.password (web-ui)", "settings.domain (web-ui)"} {
		if !strings.Contains(detail, s) {
			t.Errorf("the warning does not name %s: %s", s, detail)
		}
	}
	if strings.Contains(detail, "FOREIGN-SECRET") || strings.Contains(detail, "web.example.com") {
		t.Errorf("the warning holds a value: %s", detail)
	}
	foreign := foreignSettings(obj, "terraform-provider-deckhouse")
	if !jsonEqual(foreign, map[string]any{"auth": map[string]any{"password": "FOREIGN-SECRET"}, "domain": "web.example.com"}) {
		t.Errorf("foreign settings %v", foreign)
	}

	never := managedObject(webUI)
	got, diags = ownedSettings(never, "terraform-provider-deckhouse", settings)
	if !jsonEqual(got, settings) || len(diags) != 0 || foreignSettings(never, "terraform-provider-deckhouse") != nil {
		t.Fatalf("an Application this manager never applied: %v, %v", got, diags)
	}
}
