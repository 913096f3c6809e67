package datasources

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSummarizeApplication_SpecStateAndTwoConditions(t *testing.T) {
	t.Parallel()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "team-a"},
		"spec":     map[string]any{"packageName": "demo", "packageVersion": "v1.0.0", "settings": map[string]any{"password": "x"}},
		"status": map[string]any{
			"summary": map[string]any{"state": "Updating"},
			"conditions": []any{
				map[string]any{"type": "Installed", "status": "True"},
				map[string]any{"type": "ConfigurationApplied", "status": "False"},
			},
		},
	}}
	got := summarizeApplication(obj).Attributes()
	want := map[string]string{
		"namespace": `"team-a"`, "name": `"web"`, "package_name": `"demo"`, "package_version": `"v1.0.0"`,
		"package_repository_name": "<null>", "state": `"Updating"`, "configuration_applied": `"False"`, "ready": "<null>",
		"update": "<null>", "resource_requests": "<null>",
	}
	if len(got) != len(want) {
		t.Errorf("attributes %v, want exactly %v", got, want)
	}
	for k, w := range want {
		if g := got[k].String(); g != w {
			t.Errorf("%s = %s, want %s", k, g, w)
		}
	}
}

// Both data sources read spec.update and spec.resourceRequests as DP wrote
// them, the CRD's defaults included (nothing is hidden: there is no
// configuration to compare with).
func TestSummarizeApplication_UpdateAndResourceRequestsAsInTheCluster(t *testing.T) {
	t.Parallel()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "team-a"},
		"spec": map[string]any{"packageName": "demo", "packageVersion": "v1.0.0",
			"update": map[string]any{"mode": "AutoPatch", "blockOnAlerts": map[string]any{"enabled": true, "severity": int64(4)},
				"windows": []any{map[string]any{"from": "8:00", "to": "9:00", "days": []any{"Mon"}}}},
			"resourceRequests": []any{map[string]any{"kind": "Deployment", "name": "web", "replicas": int64(2),
				"containers": []any{map[string]any{"name": "app", "resources": map[string]any{"limits": map[string]any{"cpu": int64(1)}}}}}},
		},
	}}
	got := summarizeApplication(obj).Attributes()
	for k, want := range map[string]string{
		"update":            `{"block_on_alerts":{"enabled":true,"severity":4},"mode":"AutoPatch","windows":[{"days":["Mon"],"from":"8:00","to":"9:00"}]}`,
		"resource_requests": `[{"containers":[{"name":"app","resources":{"limits":{"cpu":"1"},"requests":<null>}}],"kind":"Deployment","name":"web","replicas":2}]`,
	} {
		if g := got[k].String(); g != want {
			t.Errorf("%s = %s, want %s", k, g, want)
		}
	}
}
