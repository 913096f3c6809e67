package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/faultproxy"
)

// The acceptance tests of an API server that does not answer run on every
// CLI the README accepts: OpenTofu from the tool cache and, when present,
// Terraform (DECKHOUSE_TEST_TERRAFORM, default the terraform on PATH;
// "off" skips it).
//
// Their request_timeout is 5 s, to keep them short; DECKHOUSE_TEST_REQUEST_TIMEOUT
// (a duration) runs them with another, such as the default "60s".
var unresponsiveTimeout = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("DECKHOUSE_TEST_REQUEST_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 5 * time.Second
}()

// unresponsiveMargin is what a run may take beyond one request deadline:
// starting the CLI and the provider, the plan's own work, on a busy machine.
// The behaviour it guards costs a deadline per wave of reads (at least two
// more deadlines at 30 Applications).
const unresponsiveMargin = 9 * time.Second

// clis returns the CLIs to run a scenario on, by name.
func clis(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"tofu": examplesTofuPath()}
	tf := os.Getenv("DECKHOUSE_TEST_TERRAFORM")
	if tf == "" {
		tf, _ = exec.LookPath("terraform")
	}
	if tf != "off" {
		if fi, err := os.Stat(tf); err == nil && !fi.IsDir() {
			out["terraform"] = tf
		}
	}
	return out
}

// forEachCLI runs scenario once per CLI, each with its own proxy, namespace
// and working folder.
func forEachCLI(t *testing.T, scenario func(t *testing.T, f *faultEnv)) {
	t.Helper()
	for name, path := range clis(t) {
		t.Run(name, func(t *testing.T) {
			f := newFaultEnv(t, withCLI(path))
			scenario(t, f)
		})
	}
}

// apps is n deckhouse_application resources "many" of the fault env.
func (f *faultEnv) apps(n int, extra string) string {
	return fmt.Sprintf(`
resource "deckhouse_application" "many" {
  count           = %d
  name            = "app-${count.index}"
  namespace       = %q
  package_name    = %q
  package_version = "v1.0.0"
  settings        = { replicas = 1 + count.index %% 2 }
%s
}
`, n, f.namespace, f.pkg, extra)
}

// holdReads holds every GET and LIST (not watches) until the client gives up.
func (f *faultEnv) holdReads() {
	for _, verb := range []string{faultproxy.VerbGet, faultproxy.VerbList} {
		f.proxy.Add(faultproxy.Rule{Name: "hold " + verb, Verb: verb, Action: faultproxy.Delay(10 * time.Minute)})
	}
}

// heldReadPlan creates n Applications, then plans with every read held: the
// plan fails within one request deadline plus the margin, with one cause.
func heldReadPlan(t *testing.T, f *faultEnv, n int) {
	provider := f.provider(fmt.Sprintf("  request_timeout = %q", unresponsiveTimeout))
	f.cli.write(provider + f.apps(n, ""))
	f.cli.must("apply", "-auto-approve", "-parallelism=10")
	f.holdReads()
	started := time.Now()
	res := f.cli.run(nil, "plan", "-parallelism=10")
	took := time.Since(started)
	if res.Code == 0 || !outputHas(res, "did not answer") {
		t.Fatalf("plan with every read held: exit %d, want the verdict:\n%s", res.Code, res.Output())
	}
	if bound := unresponsiveTimeout + unresponsiveMargin; took > bound {
		t.Fatalf("plan of %d Applications with every read held took %s, want at most %s (one %s deadline)", n, took, bound, unresponsiveTimeout)
	}
	if first := strings.Count(res.Output(), "got no response within"); first == 0 {
		t.Fatalf("no diagnostic names the deadline:\n%s", res.Output())
	}
	// One error for the run: the others are warnings of one summary, which
	// the CLI shows once.
	if errs := strings.Count(res.Output(), "Error: "); errs != 1 {
		t.Fatalf("plan of %d Applications with every read held: %d errors, want 1 (the others say \"same cause\" in warnings):\n%s", n, errs, res.Output())
	}
	if n > 2 && !outputHas(res, "more similar warnings") {
		t.Fatalf("plan of %d Applications with every read held: the warnings after the error are not shown once:\n%s", n, res.Output())
	}
	t.Logf("plan of %d Applications with every read held: %s, %d requests held", n, took.Round(100*time.Millisecond), f.heldRequests())
	f.proxy.ClearRules()
	f.cli.planClean()
}

// heldRequests counts the requests a hold rule acted on.
func (f *faultEnv) heldRequests() int {
	n := 0
	for _, r := range f.proxy.Requests() {
		if strings.HasPrefix(r.Rule, "hold ") {
			n++
		}
	}
	return n
}

func TestAccUnresponsive_EveryReadHeldOneApplication(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) { heldReadPlan(t, f, 1) })
}

func TestAccUnresponsive_EveryReadHeldThirtyApplications(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) { heldReadPlan(t, f, 30) })
}

// A server answering every read slowly, within the deadline: the plan of
// 30 Applications succeeds.
func TestAccUnresponsive_SlowButAnsweringServerThirtyApplications(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		provider := f.provider(fmt.Sprintf("  request_timeout = %q", unresponsiveTimeout))
		f.cli.write(provider + f.apps(30, ""))
		f.cli.must("apply", "-auto-approve", "-parallelism=10")
		slow := unresponsiveTimeout / 4
		for _, verb := range []string{faultproxy.VerbGet, faultproxy.VerbList} {
			f.proxy.Add(faultproxy.Rule{Verb: verb, Action: faultproxy.Delay(slow)})
		}
		f.cli.planClean()
	})
}

// Every write held, 30 new Applications: the first writes run out one
// request deadline, the others are not sent; the apply ends within the
// create timeout; nothing is in the cluster or the state, and the rerun after
// recovery creates all 30 with no DELETE.
func TestAccUnresponsive_EveryWriteHeldThirtyApplications(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		provider := f.provider(fmt.Sprintf("  request_timeout = %q", unresponsiveTimeout))
		f.cli.write(provider + f.apps(30, "  timeouts {\n    create = \"40s\"\n  }"))
		held := f.proxy.Add(faultproxy.Rule{Name: "hold patch", Verb: faultproxy.VerbPatch, Action: faultproxy.Delay(10 * time.Minute)})
		started := time.Now()
		res := f.cli.run(nil, "apply", "-auto-approve", "-parallelism=10")
		took := time.Since(started)
		if res.Code == 0 || !outputHas(res, "not sent: the API server") {
			t.Fatalf("apply with every write held: exit %d, want writes not sent:\n%s", res.Code, res.Output())
		}
		if bound := unresponsiveTimeout + unresponsiveMargin + 5*time.Second; took > bound {
			t.Fatalf("apply of 30 with every write held took %s, want at most %s", took, bound)
		}
		t.Logf("apply of 30 Applications with every write held: %s, %d PATCH requests held", took.Round(100*time.Millisecond), held.Hits())
		if n := f.countApps(); n != 0 {
			t.Fatalf("%d Applications in the cluster after held writes, want none", n)
		}
		if out := f.cli.run(nil, "state", "list").Stdout; strings.Contains(out, "deckhouse_application") {
			t.Fatalf("the state records Applications that were not written:\n%s", out)
		}
		f.proxy.ClearRules()
		f.cli.must("apply", "-auto-approve", "-parallelism=10")
		f.noDeletes()
		if n := f.countApps(); n != 30 {
			t.Fatalf("%d Applications after the rerun, want 30", n)
		}
		f.noPendingMarks()
		f.cli.planClean()
	})
}

// noPendingMarks fails the test when an Application still carries the
// pending-create mark.
func (f *faultEnv) noPendingMarks() {
	f.t.Helper()
	list, err := f.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(f.namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	for _, obj := range list.Items {
		if _, ok := obj.GetAnnotations()[dpclient.AnnotationPendingCreate]; ok {
			f.t.Fatalf("Application %s carries %s", obj.GetName(), dpclient.AnnotationPendingCreate)
		}
	}
}

// A CA that does not sign the server's certificate fails the plan at once
// with a configuration error, not a deferred check of an unavailable cluster.
func TestAccUnresponsive_WrongCAIsAConfigurationError(t *testing.T) {
	f := newFaultEnv(t)
	other, err := faultproxy.Start(faultproxy.Config{Upstream: faultproxy.Upstream{URL: f.cp.RESTConfig().Host}})
	if err != nil {
		t.Fatal(err)
	}
	_ = other.Close()
	provider := fmt.Sprintf("provider \"deckhouse\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n}\n",
		f.proxy.URL(), f.proxy.Token(), string(other.CAPEM()))
	f.cli.write(provider + f.app("test", "app", "  settings = { replicas = 2 }"))
	started := time.Now()
	res := f.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "configuration error") || outputHas(res, "cluster unavailable") {
		t.Fatalf("plan with a wrong CA: exit %d, want a configuration error:\n%s", res.Code, res.Output())
	}
	if took := time.Since(started); took > 30*time.Second {
		t.Fatalf("plan with a wrong CA took %s", took)
	}
}
