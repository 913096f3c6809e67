package application

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
)

// TestVersionChanges_ComparesThePlannedWithTheInstalledVersion: the oldSelf
// rules run only when the prior state's status.installed_version is known and
// equals the planned package_version; an update to another version, or with
// nothing installed, skips them, as DP's webhook does.
func TestVersionChanges_ComparesThePlannedWithTheInstalledVersion(t *testing.T) {
	t.Parallel()
	withInstalled := func(v string) types.Object {
		if v == "" {
			return appstatus.Status{}.ResourceValue()
		}
		return appstatus.Status{InstalledVersion: &v}.ResourceValue()
	}
	cases := []struct {
		name    string
		status  types.Object
		planned string
		want    bool
	}{
		{"same version", withInstalled("v1.0.0"), "v1.0.0", false},
		{"new version", withInstalled("v1.0.0"), "v1.1.0", true},
		{"older version", withInstalled("v1.1.0"), "v1.0.0", true},
		{"nothing installed", withInstalled(""), "v1.0.0", true},
		{"status null", types.ObjectNull(appstatus.ResourceAttrTypes), "v1.0.0", true},
		{"status unknown", appstatus.ResourceUnknown(), "v1.0.0", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan := &applicationModel{PackageVersion: types.StringValue(tc.planned), Settings: types.DynamicNull()}
			prior := &applicationModel{PackageVersion: types.StringValue("v1.0.0"), Status: tc.status, Settings: types.DynamicNull()}
			in := checkInputFromModel(plan, prior, nil, nil)
			if in.versionChange != tc.want {
				t.Fatalf("versionChange = %v, want %v", in.versionChange, tc.want)
			}
			if got := in.request(nil, nil).VersionChange; got != tc.want {
				t.Fatalf("engine request VersionChange = %v, want %v", got, tc.want)
			}
		})
	}
}

// After an import of an Application DP has not installed (no
// status.currentVersion: the install has not finished, or failed), the
// plan does not run the oldSelf rules, as DP's webhook does not; with the
// version installed, the same update is refused by them.
func TestVersionChanges_AfterImportNothingInstalledSkipsOldSelfRules(t *testing.T) {
	for _, installed := range []bool{false, true} {
		t.Run(fmt.Sprintf("installed=%v", installed), func(t *testing.T) {
			h := newHarness(t)
			h.dp.apply("app", map[string]any{"spec": map[string]any{"packageName": "demo-app", "packageVersion": "v1.0.0",
				"packageRepositoryName": "demo", "settings": map[string]any{"size": 20}}})
			if !installed {
				h.dp.editApp("app", func(_ map[string]any, obj map[string]any) {
					if st, ok := obj["status"].(map[string]any); ok {
						delete(st, "currentVersion")
					}
				})
			}
			state, private := importApp(t, h)
			st := h.planAndApply(state, private, demoConfig(map[string]any{"size": 5}))
			if ran := strings.Contains(diagText(st.plan.Diagnostics), "size can only grow"); ran != installed {
				t.Fatalf("the oldSelf rule ran = %v, want %v:\n%s", ran, installed, diagText(st.plan.Diagnostics))
			}
		})
	}
}
