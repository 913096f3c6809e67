package application

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestImport_FirstWriteTakesOverTheKeysItSets: the first write after an
// import forces the fields this configuration sets away from the manager
// that created the Application (server-side apply with force, which moves
// only the fields of the apply configuration); the writes after it force
// nothing unless force_conflicts says so.
func TestImport_FirstWriteTakesOverTheKeysItSets(t *testing.T) {
	h := newHarness(t)
	h.dp.apply("app", map[string]any{"metadata": map[string]any{"name": "app", "namespace": "demo"},
		"spec": map[string]any{"packageName": "demo-app", "packageVersion": "v1.0.0", "packageRepositoryName": "demo",
			"settings": map[string]any{"replicas": 2}}})
	ctx := context.Background()
	imported, err := h.srv.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: TypeName, ID: "demo/app"})
	if err != nil || hasError(imported.Diagnostics) || len(imported.ImportedResources) != 1 {
		t.Fatalf("import: %v %s", err, diagText(imported.Diagnostics))
	}
	res := imported.ImportedResources[0]
	read := h.read(res.State, res.Private)
	if hasError(read.Diagnostics) {
		t.Fatalf("read: %s", diagText(read.Diagnostics))
	}

	forced := func() []bool {
		var out []bool
		for _, r := range h.dp.allRequests() {
			if strings.HasPrefix(r, "PATCH ") {
				out = append(out, strings.Contains(r, "force=true"))
			}
		}
		return out
	}
	first := h.planAndApply(read.NewState, read.Private, demoConfig(map[string]any{"replicas": 3}))
	if first.apply == nil || hasError(first.apply.Diagnostics) {
		t.Fatalf("first apply after the import: %s", diagText(append(first.plan.Diagnostics, first.applyDiags()...)))
	}
	if f := forced(); len(f) != 1 || !f[0] {
		t.Fatalf("the first write after the import forced %v, want [true]", f)
	}
	next := h.planAndApply(first.state, first.private, demoConfig(map[string]any{"replicas": 4}))
	if next.apply == nil || hasError(next.apply.Diagnostics) {
		t.Fatalf("second apply: %s", diagText(append(next.plan.Diagnostics, next.applyDiags()...)))
	}
	if f := forced(); len(f) != 2 || f[1] {
		t.Fatalf("the writes forced %v, want [true false]", f)
	}
}

func (s step) applyDiags() []*tfprotov6.Diagnostic {
	if s.apply == nil {
		return nil
	}
	return s.apply.Diagnostics
}
