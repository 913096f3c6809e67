package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestAccApplication_SettingsChecksWarningLetsDPDecide: settings the plan
// rejects (an undeclared field) fail the plan by default; with
// settings_checks = "warning" the same plan passes under plan_checks =
// "required" and the apply writes the settings for DP to judge; a plan that
// could not run the checks (version not published) still fails in strict
// mode.
func TestAccApplication_SettingsChecksWarningLetsDPDecide(t *testing.T) {
	e := newAccEnv(t)
	cfg := func(version, extra string) string {
		c := e.config(`  settings = { replicas = 2, debug = true }
  wait     = false
` + extra)
		c = strings.Replace(c, "config_path = ", "plan_checks = \"required\"\n  config_path = ", 1)
		return strings.Replace(c, `"v1.0.0"`, fmt.Sprintf("%q", version), 1)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{
			{
				Config:      cfg("v1.0.0", ""),
				ExpectError: regexp.MustCompile(`field not declared`),
			},
			{
				Config:      cfg("v1.0.0", `  settings_checks = "typo"`),
				ExpectError: regexp.MustCompile(`Invalid Attribute Value Match`),
			},
			{
				Config: cfg("v1.0.0", `  settings_checks = "warning"`),
				Check: func(*terraform.State) error {
					obj, err := e.get("app")
					if err != nil {
						return err
					}
					if v, ok, _ := unstructured.NestedBool(obj.Object, "spec", "settings", "debug"); !ok || !v {
						return fmt.Errorf("spec.settings.debug was not written: %v", obj.Object["spec"])
					}
					return nil
				},
			},
			{
				Config:      cfg("v9.9.9", `  settings_checks = "warning"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Settings not checked at plan`),
			},
		},
	})
}
