package faultproxy_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/faultproxy"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

func application(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"packageName": "demo", "packageRepositoryName": "deckhouse", "packageVersion": "v1.0.0",
		},
	}}
}

// TestLocalControlPlane_ClientGoThroughTheProxy puts the proxy between
// client-go and the real kube-apiserver of the local control plane, as the
// acceptance tests do, and checks each fault as client-go sees it.
func TestLocalControlPlane_ClientGoThroughTheProxy(t *testing.T) {
	if err := localdp.CheckBinaries(""); err != nil {
		t.Skip("local control plane binaries absent: " + err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := localdp.Start(ctx, localdp.Options{NoController: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cp.Stop() }()

	admin := cp.RESTConfig()
	p, err := faultproxy.Start(faultproxy.Config{Upstream: faultproxy.Upstream{
		URL: admin.Host, CAData: admin.CAData, CertData: admin.CertData, KeyData: admin.KeyData,
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Close() }()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(p.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "faults"
	if err := cp.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	apps := dyn.Resource(localdp.ApplicationGVR).Namespace(ns)
	apply := func(name string) error {
		_, err := apps.Apply(ctx, name, application(ns, name), metav1.ApplyOptions{FieldManager: "faultproxy-test"})
		return err
	}

	t.Run("forwarded with the control plane's credentials", func(t *testing.T) {
		if _, err := apps.List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		// A kube-apiserver just started may answer 429 first; client-go
		// retries it.
		log := p.Requests()
		if last := log[len(log)-1]; last.Verb != faultproxy.VerbList || last.Outcome != faultproxy.OutcomeForwarded || last.Code != 200 {
			t.Errorf("request log %+v, want the list forwarded and answered 200", log)
		}
	})

	t.Run("503 without Retry-After fails the apply once", func(t *testing.T) {
		p.ResetCounts()
		p.Add(faultproxy.Rule{Verb: faultproxy.VerbPatch, Resource: "applications", Times: 1, Action: faultproxy.Status(503)})
		defer p.ClearRules()
		if err := apply("a503"); !apierrors.IsServiceUnavailable(err) {
			t.Fatalf("err = %v, want ServiceUnavailable", err)
		}
		if n := p.Count(faultproxy.VerbPatch, "applications"); n != 1 {
			t.Errorf("patches %d, want 1 (client-go does not retry a 503 without Retry-After)", n)
		}
	})

	t.Run("429 with Retry-After is retried by client-go", func(t *testing.T) {
		p.ResetCounts()
		h := p.Add(faultproxy.Rule{Verb: faultproxy.VerbPatch, Times: 1, Action: faultproxy.Status(429).WithRetryAfter(1)})
		defer p.ClearRules()
		if err := apply("a429"); err != nil {
			t.Fatal(err)
		}
		if n := p.Count(faultproxy.VerbPatch, "applications"); n != 2 || h.Hits() != 1 {
			t.Errorf("patches %d, hits %d, want 2 and 1", n, h.Hits())
		}
	})

	t.Run("reply lost after the write", func(t *testing.T) {
		p.Add(faultproxy.Rule{Verb: faultproxy.VerbPatch, Times: 1, Action: faultproxy.ResetAfter()})
		defer p.ClearRules()
		if err := apply("lost"); !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("err = %v, want connection reset", err)
		}
		if _, err := cp.Dynamic().Resource(localdp.ApplicationGVR).Namespace(ns).Get(ctx, "lost", metav1.GetOptions{}); err != nil {
			t.Errorf("the write did not land: %v", err)
		}
	})

	t.Run("watch ERROR 500", func(t *testing.T) {
		p.Add(faultproxy.Rule{Verb: faultproxy.VerbWatch, Times: 1, Action: faultproxy.WatchError(500)})
		defer p.ClearRules()
		w, err := apps.Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ev, ok := <-w.ResultChan()
		if !ok || ev.Type != watch.Error {
			t.Fatalf("first event %v (open %v), want ERROR", ev.Type, ok)
		}
		if err := apierrors.FromObject(ev.Object); !apierrors.IsInternalError(err) {
			t.Errorf("ERROR event carries %v, want an InternalError", err)
		}
		if _, ok := <-w.ResultChan(); ok {
			t.Error("the watch went on after the ERROR event")
		}
	})

	t.Run("watch cut at once", func(t *testing.T) {
		p.Add(faultproxy.Rule{Verb: faultproxy.VerbWatch, Times: 1, Action: faultproxy.CutWatch()})
		defer p.ClearRules()
		w, err := apps.Watch(ctx, metav1.ListOptions{}) // no resourceVersion: ADDED for each existing object
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		n := 0
		for range w.ResultChan() {
			n++
		}
		if n != 0 {
			t.Errorf("%d events before the cut, want none", n)
		}
	})

	t.Run("kube-apiserver restarted behind the proxy", func(t *testing.T) {
		if err := cp.StopAPIServer(ctx, 0); err != nil {
			t.Fatal(err)
		}
		err := apply("down") // client-go sends a PATCH only once
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("err = %v, want connection reset", err)
		}
		log := p.Requests()
		if last := log[len(log)-1]; last.Outcome != faultproxy.OutcomeUnreachable {
			t.Errorf("outcome %q, want %q", last.Outcome, faultproxy.OutcomeUnreachable)
		}
		if err := cp.StartAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		if err := apply("up"); err != nil {
			t.Errorf("after the restart: %v", err)
		}
	})
}
