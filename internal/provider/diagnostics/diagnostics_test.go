package diagnostics

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

func TestUnitProblemDiagnostics_PathSpelledInSummary(t *testing.T) {
	t.Parallel()
	problems := []*engine.Problem{
		{Document: engine.DocSettings, Path: engine.Path{}.Key("postgres").Key("storageClass"), Kind: engine.KindPattern, Message: "Enter a name."},
		{Document: engine.DocSettings, Path: engine.Path{}.Key("items").Index(2).Key("name"), Kind: engine.KindType, Message: "expected string"},
		{Document: engine.DocSettings, Kind: engine.KindCEL, Message: "replicas must not exceed maxReplicas", Rule: "self.replicas <= self.maxReplicas"},
		{Document: engine.DocSettings, Path: engine.Path{}.Key("replica"), Kind: engine.KindUndeclared, Message: "field not declared in the schema", Suggestion: "replicas"},
	}
	diags := FromProblems(path.Root("settings"), problems)
	if len(diags) != 4 || diags.ErrorsCount() != 4 {
		t.Fatalf("want 4 errors, got %v", diags)
	}
	want := []struct {
		summary, detail string
		path            path.Path
	}{
		{"Invalid settings.postgres.storageClass: does not match the pattern", "Enter a name.", path.Root("settings").AtName("postgres").AtName("storageClass")},
		{"Invalid settings.items[2].name: wrong type", "expected string", path.Root("settings").AtName("items").AtListIndex(2).AtName("name")},
		{"Invalid settings: rule failed", "replicas must not exceed maxReplicas\n\nRule (x-deckhouse-validations): self.replicas <= self.maxReplicas", path.Root("settings")},
		{"Invalid settings.replica: field not declared in the package schema", `field not declared in the schema Did you mean "replicas" (settings.replicas)?`, path.Root("settings").AtName("replica")},
	}
	for i, w := range want {
		d := diags[i]
		if d.Summary() != w.summary || d.Detail() != w.detail {
			t.Errorf("%d: got %q / %q", i, d.Summary(), d.Detail())
		}
		wp, ok := d.(diag.DiagnosticWithPath)
		if !ok || !wp.Path().Equal(w.path) {
			t.Errorf("%d: path %v, want %v", i, d, w.path)
		}
	}
}

func TestUnitProblemDiagnostics_DocumentPicksRoot(t *testing.T) {
	t.Parallel()
	roots := map[engine.Document]path.Path{
		engine.DocSettings:   path.Root("settings"),
		engine.DocHookValues: path.Root("hook_values"),
	}
	diags := FromProblemsByDocument(roots, path.Root("settings"), []*engine.Problem{
		{Document: engine.DocHookValues, Path: engine.Path{}.Key("internal").Key("x"), Kind: engine.KindCEL, Message: "m"},
		{Document: engine.DocPreviousSettings, Path: engine.Path{}.Key("a"), Kind: engine.KindType, Message: "m"},
	})
	if got := diags[0].Summary(); got != "Invalid hook_values.internal.x: rule failed" {
		t.Errorf("hook values summary %q", got)
	}
	if got := diags[1].Summary(); got != "Invalid settings.a: wrong type" {
		t.Errorf("fallback summary %q", got)
	}
}

func TestUnitSwitchDiagnostics_ByImpact(t *testing.T) {
	t.Parallel()
	mode := engine.Path{}.Key("storage").Key("mode")
	sw := []engine.Switch{
		{Path: mode, From: "A", To: "B", Impact: engine.ImpactInfo, Messages: map[string]string{"en": "info"}},
		{Path: mode, From: "A", To: "C", Impact: engine.ImpactWarning, Messages: map[string]string{"en": "careful", "ru": "осторожно"}},
		{Path: mode, From: "A", To: "D", Impact: engine.ImpactDestructive, Messages: map[string]string{"en": "data lost"}},
	}
	diags := Switches(path.Root("settings"), sw, false)
	if len(diags) != 1 || diags.WarningsCount() != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	if diags[0].Detail() != "careful" || !strings.Contains(diags[0].Summary(), "settings.storage.mode") {
		t.Fatalf("warning %q / %q", diags[0].Summary(), diags[0].Detail())
	}
	diags = Switches(path.Root("settings"), sw, true)
	if len(diags) != 2 || diags.WarningsCount() != 2 || diags[1].Detail() != "data lost" {
		t.Fatalf("acknowledged destructive switch: %v", diags)
	}
	if got := switchMessage(engine.Switch{Messages: map[string]string{"ru": "только"}}); got != "только" {
		t.Fatalf("fallback message %q", got)
	}
}
