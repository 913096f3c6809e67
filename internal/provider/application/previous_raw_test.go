package application

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// TestPlan_OldSelfBoundToPriorRawSettings: oldSelf is the prior state's
// settings as written (no defaults), with the sensitive values only while
// sensitive_settings_version is unchanged.
func TestPlan_OldSelfBoundToPriorRawSettings(t *testing.T) {
	t.Parallel()
	applied := func(status string) types.Object {
		return appstatus.Status{ConfigurationApplied: &appstatus.Condition{Type: "ConfigurationApplied", Status: &status}}.ResourceValue()
	}
	prior := &applicationModel{
		Settings:                 convert.ToDynamic(map[string]any{"a": "x"}),
		SensitiveSettingsVersion: types.StringValue("1"),
		Status:                   applied("True"),
	}
	sensitive := map[string]any{"password": "p"}
	cases := []struct {
		name    string
		version string
		want    int // keys in the previous raw settings
	}{
		{"same version keeps the sensitive values", "1", 2},
		{"new version leaves them out", "2", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan := &applicationModel{SensitiveSettingsVersion: types.StringValue(tc.version)}
			raw, ok := previousRawSettings(plan, prior, sensitive)
			m, _ := raw.(map[string]any)
			if !ok || len(m) != tc.want {
				t.Fatalf("got %v %v", ok, len(m))
			}
		})
	}
	// A rejected or pending update: the state's settings were not applied.
	rejected := *prior
	rejected.Status = applied("False")
	if _, ok := previousRawSettings(&applicationModel{}, &rejected, nil); ok {
		t.Fatal("settings DP did not apply must not be oldSelf")
	}
}
