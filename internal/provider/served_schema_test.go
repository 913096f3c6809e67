package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// A schema a cluster serves that DP's runtime refuses (an empty
// x-deckhouse-grantable-resource, an OpenAPI 3 discriminator object) fails
// the plan at package_version with DP's reason, in the default plan_checks
// mode, as the load of a package folder (deckhouse_package_settings) does.
func TestAccServedSchema_DPsRuntimeRefusalFailsThePlan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema, reason string
	}{
		{"empty grantable resource", `{"type": "object", "properties": {"storageClass": {"type": "string", "x-deckhouse-grantable-resource": ""}}}`,
			`field "storageClass": x-deckhouse-grantable-resource requires a non-empty value`},
		{"discriminator object", `{"type": "object", "properties": {"backend": {"type": "object", "discriminator": {"propertyName": "kind"}}}}`,
			`cannot unmarshal object into ... discriminator of type string`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newAccEnv(t, withCLI(""), withPackageSuffix(fmt.Sprintf("-served%d", i)),
				withPackageVersion(localdp.PackageVersionSeed{Version: "v1.0.0", SettingsSchema: []byte(tc.schema)}))
			cli := e.cli
			cli.write(e.config(fmt.Sprintf("  package_repository_name = %q\n  settings = {}", e.repository)))
			res := cli.run(nil, "plan")
			if res.Code == 0 || !outputHas(res, "cannot be installed") || !outputHas(res, tc.reason) {
				t.Fatalf("plan against a served schema DP's runtime refuses: exit %d, want %q:\n%s", res.Code, tc.reason, res.Output())
			}
			// The same schema in a package folder, offline.
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "openapi"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "openapi", "settings.yaml"), []byte(tc.schema), 0o644); err != nil {
				t.Fatal(err)
			}
			cli.write(emptyProvider + settingsDS("s", dir, `  settings = {}`))
			res = cli.run(nil, "plan")
			if res.Code == 0 || !outputHas(res, "Cannot load the package") || !outputHas(res, tc.reason) {
				t.Fatalf("deckhouse_package_settings: exit %d, want %q:\n%s", res.Code, tc.reason, res.Output())
			}
		})
	}
}
