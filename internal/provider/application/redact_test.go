package application

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

const foreignSecretText = "admin login with password FOREIGN-SECRET verified"

// appWithForeignSecret is an Application whose settings hold, beside
// replicas, another manager's auth.password, quoted by DP's texts, with the
// given managedFields.
func appWithForeignSecret(entries ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "app", "namespace": "demo", "uid": "uid-1", "generation": int64(2), "resourceVersion": "9"},
		"spec": map[string]any{
			"packageName": "demo-app", "packageVersion": "v1.0.0", "packageRepositoryName": "demo",
			"settings": map[string]any{"replicas": int64(3), "auth": map[string]any{"password": "FOREIGN-SECRET"}},
		},
		"status": map[string]any{
			"summary": map[string]any{"state": "Ready", "message": foreignSecretText},
			"conditions": []any{map[string]any{
				"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied", "observedGeneration": int64(2),
				"message": foreignSecretText, "lastTransitionTime": "2026-01-01T00:00:00Z",
			}},
		},
	}}
	obj.SetManagedFields(entries)
	return obj
}

// TestRedaction_FollowsWhatTheStateHolds: whichever way the state was
// reached (the first write after an import, a create, an update, a
// refresh, this manager having applied no settings), DP's texts in the
// recorded status carry no value of a key this configuration does not set.
func TestRedaction_FollowsWhatTheStateHolds(t *testing.T) {
	ctx := context.Background()
	kubectl := entry("kubectl-create", metav1.ManagedFieldsOperationUpdate,
		`{"f:spec":{"f:settings":{".":{},"f:auth":{".":{},"f:password":{}}}}}`)
	mine := entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:settings":{"f:replicas":{}}}}`)
	noSettings := entry(providerdata.DefaultFieldManager, metav1.ManagedFieldsOperationApply, `{"f:spec":{"f:packageName":{}}}`)
	r := &Resource{data: &providerdata.Data{FieldManager: providerdata.DefaultFieldManager}}

	writes := []struct {
		name  string
		prior bool
		priv  privateState
	}{
		{name: "first write after an import", prior: true, priv: privateState{Imported: true, UID: "uid-1"}},
		{name: "create"},
		{name: "update", prior: true, priv: privateState{Recorded: true, UID: "uid-1"}},
	}
	for _, tt := range writes {
		t.Run(tt.name, func(t *testing.T) {
			plan := appState()
			plan.Settings = convert.ToDynamic(map[string]any{"replicas": 3})
			plan.Status, plan.LastAppliedSettings = types.ObjectUnknown(plan.Status.AttributeTypes(ctx)), types.StringUnknown()
			wr := &writeRequest{plan: &plan, private: tt.priv, settings: map[string]any{"replicas": int64(3)}, secrets: newRedactor(nil),
				opts: dpclient.ApplyOptions{FieldManager: providerdata.DefaultFieldManager}}
			if tt.prior {
				prior := appState()
				wr.prior = &prior
			}
			obj := appWithForeignSecret(mine, kubectl)
			wr.learn(obj)
			var w writeOutcome
			r.written(ctx, wr, obj, nil, &w)
			if s := plan.Status.String() + plan.LastAppliedSettings.String(); strings.Contains(s, "FOREIGN-SECRET") {
				t.Errorf("the recorded state holds the other manager's secret: %s", s)
			}
			if got := wr.secrets.Redact(foreignSecretText); strings.Contains(got, "FOREIGN-SECRET") {
				t.Errorf("the write's diagnostics would hold it: %s", got)
			}
		})
	}

	refreshes := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		prior   map[string]any
	}{
		{name: "refresh", entries: []metav1.ManagedFieldsEntry{mine, kubectl}, prior: map[string]any{"replicas": 3}},
		{name: "refresh, this manager applied no settings", entries: []metav1.ManagedFieldsEntry{noSettings, kubectl}},
	}
	for _, tt := range refreshes {
		t.Run(tt.name, func(t *testing.T) {
			state := appState()
			state.Settings = convert2Dynamic(tt.prior)
			_, diags := r.refreshFrom(ctx, &state, privateState{Recorded: true, UID: "uid-1", ResourceVersion: "8"},
				appWithForeignSecret(tt.entries...), nil)
			if diags.HasError() {
				t.Fatalf("refresh: %v", diags)
			}
			if s := state.Status.String() + state.Settings.String() + state.LastAppliedSettings.String(); strings.Contains(s, "FOREIGN-SECRET") {
				t.Errorf("the refreshed state holds the other manager's secret: %s", s)
			}
		})
	}
}

// TestRedaction_WaitLearnsTheAppliedApplication: the wait's texts (its log
// lines) are redacted with the values of the applied Application's settings
// this configuration does not set, learnt when the apply returns and before
// the wait starts.
func TestRedaction_WaitLearnsTheAppliedApplication(t *testing.T) {
	plan := appState()
	wr := &writeRequest{plan: &plan, settings: map[string]any{"replicas": int64(3)}, secrets: newRedactor(nil)}
	req := wr.request()
	if req.Applied == nil || req.Wait == nil {
		t.Fatal("the write request neither learns from the apply nor waits")
	}
	req.Applied(appWithForeignSecret())
	if got := req.Wait.Redact(foreignSecretText); strings.Contains(got, "FOREIGN-SECRET") {
		t.Errorf("the wait's redaction misses the other manager's value: %s", got)
	}
}
