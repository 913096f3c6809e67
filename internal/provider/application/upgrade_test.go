package application

import (
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
		{"status null", appstatus.ResourceNull(), "v1.0.0", true},
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
