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
	got := summarizeApplication(obj).value().Attributes()
	want := map[string]string{
		"namespace": `"team-a"`, "name": `"web"`, "package_name": `"demo"`, "package_version": `"v1.0.0"`,
		"package_repository_name": "<null>", "state": `"Updating"`, "configuration_applied": `"False"`, "ready": "<null>",
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
