package dpapi

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

func TestCatalog_ReadsDefaultAndAvailableNames(t *testing.T) {
	tests := []struct {
		name   string
		status map[string]any
		want   engine.GrantCatalog
	}{
		{"no status", nil, engine.GrantCatalog{}},
		{"status.default wins", map[string]any{
			"default":   "fast",
			"available": []any{map[string]any{"name": "slow", "default": true}, map[string]any{"name": "fast"}},
		}, engine.GrantCatalog{Default: "fast", Available: []string{"slow", "fast"}}},
		{"default from the entry marked default", map[string]any{
			"available": []any{map[string]any{"name": "slow"}, map[string]any{"name": "fast", "default": true}},
		}, engine.GrantCatalog{Default: "fast", Available: []string{"slow", "fast"}}},
		{"entries without a name or of the wrong shape are skipped", map[string]any{
			"available": []any{"x", map[string]any{"default": true}, map[string]any{"name": "ok"}},
		}, engine.GrantCatalog{Available: []string{"ok"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{}}
			if tt.status != nil {
				obj.Object["status"] = tt.status
			}
			if got := Catalog(obj); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Catalog = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPackageVersionName_IsRepositoryPackageVersion(t *testing.T) {
	if got := PackageVersionName("main", "postgres", "v1.2.0"); got != "main-postgres-v1.2.0" {
		t.Fatalf("got %q", got)
	}
}
