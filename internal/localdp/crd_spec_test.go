package localdp

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The Application CRD checks spec.update and spec.resourceRequests with
// DP's rules: the enums, the window time pattern, severity 0–9, replicas
// 0 or more and only for Deployment, StatefulSet and ReplicaSet, and kind +
// name as the keys of the list.
func TestCRD_ApplicationUpdateAndResourceRequestsFollowDPsRules(t *testing.T) {
	cp := needControlPlane(t)
	ns := newNamespace(t, cp)
	deployment := func(extra map[string]any) map[string]any {
		e := map[string]any{"kind": "Deployment", "name": "web"}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	tests := []struct {
		name  string
		field string
		value any
		ok    bool
	}{
		{"every update field", "update", map[string]any{"mode": "Manual",
			"windows":       []any{map[string]any{"from": "8:00", "to": "23:59", "days": []any{"Mon", "Sun"}}},
			"blockOnAlerts": map[string]any{"enabled": true, "severity": int64(0)}}, true},
		{"unknown mode", "update", map[string]any{"mode": "Sometimes"}, false},
		{"window hour 24", "update", map[string]any{"windows": []any{map[string]any{"from": "24:00", "to": "1:00"}}}, false},
		{"window minute of one digit", "update", map[string]any{"windows": []any{map[string]any{"from": "8:0", "to": "9:00"}}}, false},
		{"unknown day", "update", map[string]any{"windows": []any{map[string]any{"from": "8:00", "to": "9:00", "days": []any{"Monday"}}}}, false},
		{"severity 10", "update", map[string]any{"blockOnAlerts": map[string]any{"severity": int64(10)}}, false},
		{"deployment with replicas and resources", "resourceRequests", []any{deployment(map[string]any{"replicas": int64(0),
			"containers": []any{map[string]any{"name": "app", "resources": map[string]any{
				"limits": map[string]any{"cpu": "500m"}, "requests": map[string]any{"memory": "128Mi"}}}}})}, true},
		{"negative replicas", "resourceRequests", []any{deployment(map[string]any{"replicas": int64(-1)})}, false},
		{"replicas of a DaemonSet", "resourceRequests", []any{map[string]any{"kind": "DaemonSet", "name": "agent", "replicas": int64(1)}}, false},
		{"unknown kind", "resourceRequests", []any{map[string]any{"kind": "Service", "name": "web"}}, false},
		{"empty name", "resourceRequests", []any{map[string]any{"kind": "Pod", "name": ""}}, false},
		{"same kind and name twice", "resourceRequests", []any{deployment(nil), deployment(nil)}, false},
		{"same name, other kind", "resourceRequests", []any{deployment(nil), map[string]any{"kind": "StatefulSet", "name": "web"}}, true},
		{"bad quantity", "resourceRequests", []any{deployment(map[string]any{"containers": []any{map[string]any{"name": "app",
			"resources": map[string]any{"limits": map[string]any{"cpu": "lots"}}}}})}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := application(ns, fmt.Sprintf("spec-%d", i), "v1.0.0", nil)
			_ = unstructured.SetNestedField(app.Object, tt.value, "spec", tt.field)
			_, err := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns).Create(context.Background(), app, metav1.CreateOptions{})
			if tt.ok && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !tt.ok && !apierrors.IsInvalid(err) {
				t.Fatalf("err = %v, want Invalid", err)
			}
		})
	}
}

// An omitted mode and severity get the CRD's defaults, AutoPatch and 4.
func TestCRD_ApplicationUpdateDefaults(t *testing.T) {
	cp := needControlPlane(t)
	ns := newNamespace(t, cp)
	app := application(ns, "defaults", "v1.0.0", nil)
	_ = unstructured.SetNestedField(app.Object, map[string]any{"blockOnAlerts": map[string]any{"enabled": true}}, "spec", "update")
	out := createApp(t, cp, app)
	mode, _, _ := unstructured.NestedString(out.Object, "spec", "update", "mode")
	severity, _, _ := unstructured.NestedInt64(out.Object, "spec", "update", "blockOnAlerts", "severity")
	if mode != "AutoPatch" || severity != 4 {
		t.Fatalf("mode %q, severity %d; want AutoPatch and 4", mode, severity)
	}
}
