package application

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
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
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
}

// TestOwnedSettings_KeysOfOtherManagersLeaveTheStateAndAreNamedWithoutValues:
// the refresh keeps the keys this manager applied (nested ones included),
// leaves out those only others own, and warns naming each foreign path with
// its managers and no value; an Application this manager never applied
// keeps every key, and the plan checks them all as another manager's.
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
	if !jsonvalue.Equal(got, want) {
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
	if !jsonvalue.Equal(foreign, map[string]any{"auth": map[string]any{"password": "FOREIGN-SECRET"}, "domain": "web.example.com"}) {
		t.Errorf("foreign settings %v", foreign)
	}

	never := managedObject(webUI)
	got, diags = ownedSettings(never, "terraform-provider-deckhouse", settings)
	if !jsonvalue.Equal(got, settings) || len(diags) != 0 {
		t.Fatalf("an Application this manager never applied: %v, %v", got, diags)
	}
	// Its apply removes no key it does not own: the plan checks every key
	// of the cluster beside the configuration's.
	if foreign := foreignSettings(never, "terraform-provider-deckhouse"); !jsonvalue.Equal(foreign, settings) {
		t.Fatalf("foreign settings of an Application this manager never applied: %v", foreign)
	}
}

// TestOwnedSettings_MemberlessSetOnAMapOwnsNoKey: with an Apply entry of
// this manager, a missing f:settings (it applied no settings) or a field set
// without members on a map (settings = {}, auth = {}) owns no key of that
// map, so another manager's keys stay out of the state and are named; a
// member-less set owns a scalar or a list whole.
func TestOwnedSettings_MemberlessSetOnAMapOwnsNoKey(t *testing.T) {
	t.Parallel()
	kubectl := entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate,
		`{"f:spec":{"f:settings":{"f:replicas":{},"f:domain":{},"f:auth":{"f:user":{},"f:password":{}}}}}`)
	tests := []struct {
		name        string
		mine        string
		want        map[string]any
		wantForeign []string
	}{
		{name: "no settings applied", mine: `{"f:spec":{"f:packageName":{}}}`, want: map[string]any{},
			wantForeign: []string{"settings.auth (kubectl-edit)", "settings.domain (kubectl-edit)", "settings.replicas (kubectl-edit)"}},
		{name: "settings = {}", mine: `{"f:spec":{"f:settings":{}}}`, want: map[string]any{},
			wantForeign: []string{"settings.auth (kubectl-edit)", "settings.domain (kubectl-edit)", "settings.replicas (kubectl-edit)"}},
		// A state that does not set auth: its map holds nothing of this
		// configuration's, so it is left out with the keys of others in it.
		{name: "auth = {} one level down", mine: `{"f:spec":{"f:settings":{".":{},"f:replicas":{},"f:auth":{}}}}`,
			want:        map[string]any{"replicas": int64(2)},
			wantForeign: []string{"settings.auth.password (kubectl-edit)", "settings.auth.user (kubectl-edit)", "settings.domain (kubectl-edit)"}},
		{name: "a scalar is owned whole", mine: `{"f:spec":{"f:settings":{"f:domain":{}}}}`,
			want:        map[string]any{"domain": "web.example.com"},
			wantForeign: []string{"settings.auth (kubectl-edit)", "settings.replicas (kubectl-edit)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := managedObject(entry("terraform-provider-deckhouse", metav1.ManagedFieldsOperationApply, tt.mine), kubectl)
			settings, _, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings")
			got, diags := ownedSettings(obj, "terraform-provider-deckhouse", settings)
			if !jsonvalue.Equal(got, tt.want) {
				t.Fatalf("owned settings %v, want %v", got, tt.want)
			}
			if len(diags) != 1 {
				t.Fatalf("want one warning, got %v", diags)
			}
			detail := diags[0].Detail()
			for _, s := range tt.wantForeign {
				if !strings.Contains(detail, s) {
					t.Errorf("the warning does not name %s: %s", s, detail)
				}
			}
			if strings.Contains(detail, "FOREIGN-SECRET") {
				t.Errorf("the warning holds a value: %s", detail)
			}
			secrets := redactorOf(obj, privateState{}, got, nil)
			if !strings.Contains(secrets.Redact("password FOREIGN-SECRET"), redactedMarker) {
				t.Errorf("the foreign secret is not redacted from DP's texts")
			}
		})
	}
}

// TestOwnedSettings_UpdateManagersAreNamed: a key that an Update entry owns
// (kubectl create) is named with that manager, never as owned by no field
// manager.
func TestOwnedSettings_UpdateManagersAreNamed(t *testing.T) {
	t.Parallel()
	obj := managedObject(
		entry("kubectl-create", metav1.ManagedFieldsOperationUpdate,
			`{"f:spec":{".":{},"f:packageName":{},"f:settings":{".":{},"f:replicas":{},"f:domain":{},"f:auth":{".":{},"f:user":{},"f:password":{}}}}}`),
		entry("terraform-provider-deckhouse", metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:settings":{"f:replicas":{}}}}`),
	)
	settings, _, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings")
	_, diags := ownedSettings(obj, "terraform-provider-deckhouse", settings)
	if len(diags) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	detail := diags[0].Detail()
	if strings.Contains(detail, "no field manager") || !strings.Contains(detail, "settings.auth (kubectl-create)") ||
		!strings.Contains(detail, "settings.domain (kubectl-create)") {
		t.Errorf("the warning does not name kubectl-create for each path: %s", detail)
	}
}

// ownedSettings is the refresh's projection of settings, for a state that
// sets none of them, and its warning.
func ownedSettings(obj *unstructured.Unstructured, manager string, _ any) (any, diag.Diagnostics) {
	m := importedModel(obj.GetNamespace(), obj.GetName())
	back := readProjected(&m, obj, readOwners(obj, manager), false)
	return back.settings, back.named.warning(obj, manager)
}
