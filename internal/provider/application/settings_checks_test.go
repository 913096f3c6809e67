package application

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// TestSettingsVerdict_WarningModeTurnsEveryErrorIntoAWarningWithItsPath:
// "warning" keeps each diagnostic's summary and attribute path, turns its
// severity into a warning and says in the detail that DP decides; "error"
// and null leave the diagnostics alone.
func TestSettingsVerdict_WarningModeTurnsEveryErrorIntoAWarningWithItsPath(t *testing.T) {
	t.Parallel()
	in := func() diag.Diagnostics {
		var d diag.Diagnostics
		d.AddAttributeError(path.Root("settings"), "Invalid settings.debug: field not declared in the package schema", "detail")
		d.AddError("Invalid settings: rule failed", "rule")
		d.AddAttributeWarning(path.Root("settings"), "Settings switch settings.mode: A → B", "switch")
		return d
	}
	tests := []struct {
		name       string
		mode       string
		wantErrors int
	}{
		{"null is error", "", 2},
		{"error", settingsChecksError, 2},
		{"warning", settingsChecksWarning, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := settingsVerdict(tt.mode, in())
			if got.ErrorsCount() != tt.wantErrors || len(got) != 3 {
				t.Fatalf("errors %d of %d, want %d of 3: %v", got.ErrorsCount(), len(got), tt.wantErrors, got)
			}
			if tt.mode != settingsChecksWarning {
				return
			}
			first, ok := got[0].(diag.DiagnosticWithPath)
			if !ok || !first.Path().Equal(path.Root("settings")) {
				t.Fatalf("the attribute path was lost: %v", got[0])
			}
			for i, d := range got[:2] {
				if d.Summary() != in()[i].Summary() || !strings.Contains(d.Detail(), `settings_checks = "warning"`) {
					t.Errorf("diagnostic %d: %q / %q", i, d.Summary(), d.Detail())
				}
			}
			if got[2].Detail() != "switch" {
				t.Errorf("a warning was rewritten: %q", got[2].Detail())
			}
		})
	}
}
