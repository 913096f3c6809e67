package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/faultproxy"
)

// TestAccBootstrap_OutageDuringTheVersionWaitEndsAtTheVerdict: an apply
// waits for a package version that is not published yet (the same-run
// bootstrap), and the API server stops answering during that wait. The
// apply ends at the provider's verdict on the server, about one
// request_timeout after the first unanswered read, with the error that names
// the server: not at timeouts.create, and not naming the package version or
// client-go's rate limiter.
func TestAccBootstrap_OutageDuringTheVersionWaitEndsAtTheVerdict(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		provider := f.provider(fmt.Sprintf("  request_timeout = %q", unresponsiveTimeout))
		app := strings.Replace(f.app("app", "app", "  timeouts {\n    create = \"3m\"\n  }"), `"v1.0.0"`, `"v2.0.0"`, 1)
		f.cli.write(provider + app)
		plan := f.cli.must("plan", "-out=bootstrap.tfplan")
		if !outputHas(plan, "Package version v2.0.0 not available") {
			t.Fatalf("the plan does not defer the checks on the missing version:\n%s", plan.Output())
		}
		// The apply's first read of the version is answered (it is missing:
		// the wait starts); every read of it after that is held.
		f.proxy.Add(faultproxy.Rule{Name: "first read", Verb: faultproxy.VerbGet, Resource: "applicationpackageversions", Times: 1})
		f.proxy.Add(faultproxy.Rule{Name: "hold get", Verb: faultproxy.VerbGet, Resource: "applicationpackageversions",
			Action: faultproxy.Delay(10 * time.Minute)})
		started := time.Now()
		res := f.cli.run(nil, "apply", "bootstrap.tfplan")
		took := time.Since(started)
		if res.Code == 0 || !outputHas(res, "did not answer") || !outputHas(res, f.proxy.URL()) {
			t.Fatalf("apply with the server gone during the version wait: exit %d, want the verdict naming the server:\n%s", res.Code, res.Output())
		}
		if outputHas(res, "rate limiter") || outputHas(res, "timeout ended the wait") {
			t.Fatalf("the apply names the rate limiter or the timeout, not the server:\n%s", res.Output())
		}
		// The first poll comes 2 s after the wait starts, then one request
		// deadline: far from the 3-minute create timeout.
		if bound := 2*time.Second + unresponsiveTimeout + unresponsiveMargin + 5*time.Second; took > bound {
			t.Fatalf("the apply took %s, want it to end at the verdict (at most %s)", took, bound)
		}
		t.Logf("apply with the server gone during the version wait: %s", took.Round(100*time.Millisecond))
	})
}
