package provider

import (
	"fmt"
	"strings"
	"testing"
)

// A strict plan (plan_checks = "required") of new Applications against an
// API server that does not answer fails with exactly one error: the checks
// it could not run are that error and warnings of one cause, never warnings
// alone.
func TestAccUnresponsive_StrictCreatePlanFailsWithOneError(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		provider := f.provider(fmt.Sprintf("  request_timeout = %q\n  plan_checks = \"required\"", unresponsiveTimeout))
		f.cli.write(provider + f.apps(3, ""))
		f.holdReads()
		res := f.cli.run(nil, "plan", "-parallelism=10")
		if res.Code == 0 {
			t.Fatalf("strict create plan with every read held: exit 0, want a failure:\n%s", res.Output())
		}
		if errs := strings.Count(res.Output(), "Error: "); errs != 1 {
			t.Fatalf("strict create plan with every read held: %d errors, want 1:\n%s", errs, res.Output())
		}
		if !outputHas(res, "did not answer") {
			t.Fatalf("the error does not give the verdict on the API server:\n%s", res.Output())
		}
	})
}
