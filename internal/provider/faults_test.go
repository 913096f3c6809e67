package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/faultproxy"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// faultEnv is an appEnv whose provider talks to the control plane through a
// fault-injecting proxy, driven by the OpenTofu CLI.
type faultEnv struct {
	*appEnv
	proxy *faultproxy.Proxy
}

// newFaultEnv is newAccEnv with a CLI (opts add to it) and the proxy.
func newFaultEnv(t *testing.T, opts ...accOption) *faultEnv {
	t.Helper()
	e := newAccEnv(t, append([]accOption{withCLI("")}, opts...)...)
	cfg := e.cp.RESTConfig()
	var (
		logMu sync.Mutex
		log   []string
	)
	p, err := faultproxy.Start(faultproxy.Config{Upstream: faultproxy.Upstream{
		URL: cfg.Host, CAData: cfg.CAData, CertData: cfg.CertData, KeyData: cfg.KeyData,
	}, Logf: func(format string, args ...any) {
		logMu.Lock()
		log = append(log, fmt.Sprintf(format, args...))
		logMu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Close()
		if t.Failed() {
			logMu.Lock()
			defer logMu.Unlock()
			t.Logf("proxy log (last 200 lines):\n%s", strings.Join(log[max(0, len(log)-200):], "\n"))
		}
	})
	return &faultEnv{appEnv: e, proxy: p}
}

// provider is a provider block that connects through the proxy.
func (f *faultEnv) provider(extra string) string {
	return fmt.Sprintf("provider \"deckhouse\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n%s\n}\n",
		f.proxy.URL(), f.proxy.Token(), string(f.proxy.CAPEM()), extra)
}

// app is a deckhouse_application named name with body.
func (f *faultEnv) app(addr, name, body string) string {
	return fmt.Sprintf(`
resource "deckhouse_application" %q {
  name            = %q
  namespace       = %q
  package_name    = %q
  package_version = "v1.0.0"
%s
}
`, addr, name, f.namespace, f.pkg, body)
}

// noDeletes fails the test when the proxy saw a DELETE of an Application.
func (f *faultEnv) noDeletes() {
	f.t.Helper()
	if n := f.proxy.Count(faultproxy.VerbDelete, "applications"); n != 0 {
		f.t.Fatalf("%d DELETE requests of Applications, want none", n)
	}
}

func (f *faultEnv) countApps() int {
	f.t.Helper()
	list, err := f.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(f.namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return len(list.Items)
}

// A 503 without Retry-After and a reset connection on the create's
// server-side apply are retried: the apply succeeds with one Application.
func TestAccFaults_CreatePatchRetriedAfter503AndReset(t *testing.T) {
	f := newFaultEnv(t)
	status := f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbPatch, Resource: "applications", Times: 1, Action: faultproxy.Status(503)})
	reset := f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbPatch, Resource: "applications", Times: 1, Action: faultproxy.ResetBefore()})
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	if status.Hits() != 1 || reset.Hits() != 1 {
		t.Fatalf("faults injected: 503 %d, reset %d; want 1 each", status.Hits(), reset.Hits())
	}
	if n := f.proxy.Count(faultproxy.VerbPatch, "applications"); n < 3 {
		t.Fatalf("%d PATCH requests, want the two failed ones and the ones that landed", n)
	}
	f.noDeletes()
	if n := f.countApps(); n != 1 {
		t.Fatalf("%d Applications, want 1", n)
	}
	f.cli.planClean()
}

// Every reply of the create's write is lost (the write lands): the apply
// fails saying the Application may exist, records nothing, and the rerun
// adopts the Application it wrote: one object, no DELETE.
func TestAccFaults_LostReplyThenRerunAdopts(t *testing.T) {
	f := newFaultEnv(t)
	lost := f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbPatch, Resource: "applications", Action: faultproxy.ResetAfter()})
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }\n  timeouts {\n    create = \"8s\"\n  }"))
	res := f.cli.run(nil, "apply", "-auto-approve")
	if res.Code == 0 || !outputHas(res, "may have been written") {
		t.Fatalf("apply with every reply lost: exit %d, want an error saying the Application may have been written:\n%s", res.Code, res.Output())
	}
	if lost.Hits() < 2 {
		t.Fatalf("%d lost replies, want the write retried", lost.Hits())
	}
	if n := f.countApps(); n != 1 {
		t.Fatalf("%d Applications after the lost replies, want 1 (the write landed)", n)
	}
	lost.Disable()
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	f.noDeletes()
	obj, err := f.get("app")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.GetAnnotations()[dpclient.AnnotationPendingCreate]; ok {
		t.Fatalf("annotation %s still set after the create was recorded", dpclient.AnnotationPendingCreate)
	}
	if n := f.countApps(); n != 1 {
		t.Fatalf("%d Applications, want 1", n)
	}
	f.cli.planClean()
}

// Every watch is cut at once for 20 s: the wait re-watches with backoff
// (at most 5 watch requests per second) and the apply succeeds once the
// watches work again.
func TestAccFaults_WatchCutForTwentySeconds(t *testing.T) {
	f := newFaultEnv(t)
	cut := f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbWatch, Resource: "applications", Action: faultproxy.CutWatch()})
	const window = 20 * time.Second
	time.AfterFunc(window, cut.Disable)
	started := time.Now()
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	watches := cut.Hits()
	if watches == 0 {
		t.Fatal("no watch was cut: the wait did not watch")
	}
	if rate := float64(watches) / window.Seconds(); rate > 5 {
		t.Fatalf("%d watch requests in %s (%.1f/s), want at most 5 per second", watches, window, rate)
	}
	if time.Since(started) < window {
		t.Logf("apply ended after %s, before the cut ended (DP's verdict was in the write's reply)", time.Since(started))
	}
	f.noDeletes()
	f.cli.planClean()
}

// Watch ERROR events with a 500 are retried.
func TestAccFaults_WatchErrorEventsRetried(t *testing.T) {
	f := newFaultEnv(t)
	errs := f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbWatch, Resource: "applications", Times: 3, Action: faultproxy.WatchError(500)})
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	if errs.Hits() == 0 {
		t.Log("the verdict came before any watch: no ERROR event was needed")
	}
	f.noDeletes()
	f.cli.planClean()
}

// The create's wait times out (every watch cut): nothing is recorded and
// nothing is deleted; the rerun adopts the Application and succeeds.
func TestAccFaults_CreateWaitTimeoutThenRerun(t *testing.T) {
	f := newFaultEnv(t)
	// No verdict may reach the wait: the write's reply carries no status
	// yet, and every watch is cut.
	cut := f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbWatch, Resource: "applications", Action: faultproxy.CutWatch()})
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }\n  timeouts {\n    create = \"5s\"\n  }"))
	res := f.cli.run(nil, "apply", "-auto-approve")
	if res.Code == 0 {
		if cut.Hits() == 0 {
			t.Skip("DP's verdict came with the write's reply: no wait to time out")
		}
		t.Fatalf("apply whose wait timed out exited 0:\n%s", res.Output())
	}
	if !outputHas(res, "timed out") || !outputHas(res, dpclient.AnnotationPendingCreate) {
		t.Fatalf("timeout error does not explain the outcome:\n%s", res.Output())
	}
	if strings.Contains(f.cli.run(nil, "state", "list").Stdout, "deckhouse_application.test") {
		t.Fatal("a create whose wait failed was recorded in the state (it would be tainted)")
	}
	cut.Disable()
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	f.noDeletes()
	if n := f.countApps(); n != 1 {
		t.Fatalf("%d Applications, want 1", n)
	}
	f.cli.planClean()
}

// Two configurations with the same namespace and name: the second create
// is refused, and the first keeps its Application.
func TestAccFaults_SecondConfigurationWithTheSameNameRefused(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.write(f.provider("") + f.app("first", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	other := newTofuCLI(t, false)
	other.write(f.provider("") + f.app("second", "app", "  settings = { replicas = 3 }"))
	res := other.run(nil, "apply", "-auto-approve")
	if res.Code == 0 || !outputHas(res, "already exists") || !outputHas(res, "import") {
		t.Fatalf("second create: exit %d, want an error saying the Application exists and how to import it:\n%s", res.Code, res.Output())
	}
	obj, err := f.get("app")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedInt64(obj.Object, "spec", "settings", "replicas"); v != 2 {
		t.Fatalf("replicas = %d after the refused create, want 2 (untouched)", v)
	}
	other.must("destroy", "-auto-approve")
	if _, err := f.get("app"); err != nil {
		t.Fatalf("the refused configuration's destroy deleted the Application: %v", err)
	}
	f.noDeletes()
	f.cli.planClean()
}

// An update DP rejects (an immutable field changed through
// sensitive_settings, which the plan cannot compare): the apply fails, and
// the next plan is not empty until DP has applied the configured settings.
func TestAccFaults_RejectedUpdateStaysVisible(t *testing.T) {
	f := newFaultEnv(t)
	app := func(password, version string) string {
		return f.provider("") + f.app("test", "app", fmt.Sprintf(`  settings = { replicas = 2 }
  sensitive_settings = { auth = { password = %q } }
  sensitive_settings_version = %q`, password, version))
	}
	f.cli.write(app("first-password", "1"))
	f.cli.must("apply", "-auto-approve")

	f.cli.write(app("second-password", "2"))
	res := f.cli.run(nil, "apply", "-auto-approve")
	if res.Code == 0 || !outputHas(res, "DP rejected the settings") {
		t.Fatalf("apply of an update DP rejects: exit %d, want the rejection:\n%s", res.Code, res.Output())
	}
	plan := f.cli.run(nil, "plan", "-detailed-exitcode")
	if plan.Code != 2 || !outputHas(plan, "Settings not applied by DP yet") {
		t.Fatalf("plan after a rejected update: exit %d, want 2 (an update) with a warning:\n%s", plan.Code, plan.Output())
	}
	// Back to the settings DP accepts: applied, and the plan is clean.
	f.cli.write(app("first-password", "3"))
	f.cli.must("apply", "-auto-approve")
	f.noDeletes()
	f.cli.planClean()
}

// A slow API server at plan: each read is bounded by request_timeout, and
// the plan fails with a clear error instead of hanging.
func TestAccFaults_SlowReadAtPlanBoundedByTheDeadline(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbGet, Resource: "applications", Action: faultproxy.Delay(time.Minute)})
	f.proxy.Add(faultproxy.Rule{Verb: faultproxy.VerbList, Resource: "applications", Action: faultproxy.Delay(time.Minute)})
	f.cli.write(f.provider(`  request_timeout = "2s"`) + f.app("test", "app", "  settings = { replicas = 2 }"))
	started := time.Now()
	res := f.cli.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "Cannot read Application") {
		t.Fatalf("plan against a slow server: exit %d, want a read error:\n%s", res.Code, res.Output())
	}
	// One deadline for the run, plus starting the CLI and the provider: not
	// one deadline per read.
	if d := time.Since(started); d > 2*time.Second+unresponsiveMargin {
		t.Fatalf("plan took %s with a 2s request timeout, want at most %s", d, 2*time.Second+unresponsiveMargin)
	}
	f.proxy.ClearRules()
	f.cli.planClean()
}

// 50 Applications with -parallelism=20 while 20 % of the requests of
// Applications are answered 429, with a provider built with -race: all are
// created, the plan is clean afterwards, and the race detector stays quiet.
func TestAccFaults_FiftyApplicationsUnderThrottling(t *testing.T) {
	f := newFaultEnv(t, withRaceProvider())
	f.cli.env = append(f.cli.env, "GORACE=halt_on_error=1 exitcode=66")
	throttle := f.proxy.Add(faultproxy.Rule{Resource: "applications", Every: 5, Action: faultproxy.Status(429).WithRetryAfter(1)})
	var cfg strings.Builder
	cfg.WriteString(f.provider(""))
	fmt.Fprintf(&cfg, `
resource "deckhouse_application" "many" {
  count           = 50
  name            = "app-${count.index}"
  namespace       = %q
  package_name    = %q
  package_version = "v1.0.0"
  settings        = { replicas = 1 + count.index %% 2 }
}
`, f.namespace, f.pkg)
	f.cli.write(cfg.String())
	res := f.cli.run(nil, "apply", "-auto-approve", "-parallelism=20")
	if res.Code != 0 {
		t.Fatalf("apply of 50 under throttling: exit %d\n%s", res.Code, res.Output())
	}
	if throttle.Hits() == 0 {
		t.Fatal("no request was throttled")
	}
	if log := f.cli.file(".tofu.log"); strings.Contains(log, "WARNING: DATA RACE") {
		t.Fatal("the race detector reported a data race (see the log)")
	}
	if n := f.countApps(); n != 50 {
		t.Fatalf("%d Applications, want 50", n)
	}
	throttle.Disable()
	f.noDeletes()
	f.cli.planClean()
}

// A real restart of kube-apiserver during the create's wait: the wait
// survives the refused connections and the cut watch, and the apply
// succeeds with nothing tainted. The test has a control plane of its own
// with no controller, and gives DP's verdict itself after the restart.
func TestAccFaults_APIServerRestartDuringTheWait(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs TF_ACC=1")
	}
	ctx := context.Background()
	cp, err := localdp.Start(ctx, localdp.Options{NoController: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	const ns, pkg = "restart", "demo"
	if err := cp.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("testdata/app/demo-settings.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.SeedPackageVersion(ctx, localdp.PackageVersionSeed{Repository: "main", Package: pkg, Version: "v1.0.0", SettingsSchema: schema}); err != nil {
		t.Fatal(err)
	}
	cli := newTofuCLI(t, false)
	cli.write(fmt.Sprintf(`provider "deckhouse" {
  config_path = %q
}
resource "deckhouse_application" "test" {
  name                    = "app"
  namespace               = %q
  package_name            = %q
  package_version         = "v1.0.0"
  package_repository_name = "main"
  settings                = { replicas = 2 }
}
`, cp.KubeconfigPath(), ns, pkg))
	var (
		wg      sync.WaitGroup
		dpError error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(ns)
		// Once the Application is written, restart the API server, then
		// give DP's verdict on its generation.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			if _, err := client.Get(ctx, "app", metav1.GetOptions{}); err == nil {
				break
			} else if !apierrors.IsNotFound(err) || time.Now().After(deadline) {
				dpError = fmt.Errorf("waiting for the Application: %w", err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Second)
		if err := cp.RestartAPIServer(ctx, 3*time.Second); err != nil {
			dpError = fmt.Errorf("restarting kube-apiserver: %w", err)
			return
		}
		dpError = markApplied(ctx, cp, ns, "app")
	}()
	res := cli.run(nil, "apply", "-auto-approve")
	wg.Wait()
	if dpError != nil {
		t.Fatal(dpError)
	}
	if res.Code != 0 {
		t.Fatalf("apply across a kube-apiserver restart: exit %d\n%s", res.Code, res.Output())
	}
	if out := cli.run(nil, "state", "list").Stdout; !strings.Contains(out, "deckhouse_application.test") {
		t.Fatalf("the Application is not in the state:\n%s", out)
	}
	if show := cli.run(nil, "show").Stdout; strings.Contains(show, "tainted") {
		t.Fatalf("the Application is tainted:\n%s", show)
	}
	cli.planClean()
}

// markApplied sets ConfigurationApplied=True for the current generation, as
// DP does once it has applied the settings.
func markApplied(ctx context.Context, cp *localdp.ControlPlane, ns, name string) error {
	client := cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(ns)
	deadline := time.Now().Add(time.Minute)
	for {
		obj, err := client.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			settings, _, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings")
			status := map[string]any{
				"summary":                  map[string]any{"state": "Ready"},
				"lastAppliedConfiguration": settings,
				"conditions": []any{map[string]any{
					"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied", "message": "",
					"observedGeneration": obj.GetGeneration(), "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
				}},
			}
			obj.Object["status"] = status
			if _, err = client.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("marking the Application applied: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A field another manager owns: the apply is refused with an error naming
// the manager and the field, never its value; force_conflicts takes it over.
func TestAccFaults_ConflictNamesTheOtherManagerAndTheField(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 2 }"))
	f.cli.must("apply", "-auto-approve")
	body := []byte(fmt.Sprintf(`{"apiVersion":"deckhouse.io/v1alpha1","kind":"Application","metadata":{"name":"app","namespace":%q},"spec":{"settings":{"replicas":7}}}`, f.namespace))
	force := true
	if _, err := f.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(f.namespace).Patch(context.Background(), "app", k8stypes.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: "other-team", Force: &force}); err != nil {
		t.Fatal(err)
	}
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 3 }"))
	res := f.cli.run(nil, "apply", "-auto-approve")
	if res.Code == 0 || !outputHas(res, "other-team") || !outputHas(res, ".spec.settings.replicas") || !outputHas(res, "force_conflicts") {
		t.Fatalf("apply over another manager's field: exit %d, want a conflict naming other-team and .spec.settings.replicas:\n%s", res.Code, res.Output())
	}
	f.cli.write(f.provider("") + f.app("test", "app", "  settings = { replicas = 3 }\n  force_conflicts = true"))
	f.cli.must("apply", "-auto-approve")
	f.cli.planClean()
}
