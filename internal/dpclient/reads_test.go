package dpclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// requestCounter counts the requests of a client by method and LIST/GET.
type requestCounter struct {
	mu         sync.Mutex
	counts     map[string]int
	next       http.RoundTripper
	forbidList bool // answer LISTs with 403 Forbidden, as RBAC without list does
}

func (c *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	kind := req.Method
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/"+dpapi.ApplicationGVR.Resource) {
		kind = "LIST"
	}
	c.mu.Lock()
	c.counts[kind]++
	forbid := c.forbidList && kind == "LIST"
	c.mu.Unlock()
	if forbid {
		body := `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"list is forbidden"}`
		return &http.Response{
			StatusCode: http.StatusForbidden, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req,
		}, nil
	}
	return c.next.RoundTrip(req)
}

func (c *requestCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	c.counts = map[string]int{}
	return out
}

// Refresh reads: the first in a namespace is a GET, the next ones share one
// LIST, a missing Application is NotFound, a write makes its name stale, and
// a forbidden LIST leaves the namespace to GETs.
func TestApplicationReads_OneListPerNamespaceAfterTheFirstRead(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t)
	for i := range 5 {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": fmt.Sprintf("r%d", i), "namespace": e.namespace},
			"spec":     map[string]any{"packageName": e.pkg, "packageRepositoryName": "main", "packageVersion": "v1.0.0"},
		}}
		if _, err := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The creates' existence checks read metadata only; refreshes read
	// whole objects. Both share one LIST per namespace the same way.
	for _, metadataOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("metadataOnly=%v", metadataOnly), func(t *testing.T) {
			cfg := e.cp.RESTConfig()
			counter := &requestCounter{counts: map[string]int{}}
			cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
			dyn, err := dynamic.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			md, err := metadata.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			src := appSource{dyn: dyn}
			if metadataOnly {
				src.meta = md
			}
			reads := newApplicationReads(src, 0)
			read := func(name string) error {
				obj, err := reads.get(ctx, e.namespace, name)
				if err == nil && obj.GetName() != name {
					t.Fatalf("read %s, got %s", name, obj.GetName())
				}
				if err == nil && hasSpec(obj) == metadataOnly {
					t.Fatalf("read %s: spec read = %v with metadataOnly = %v", name, !metadataOnly, metadataOnly)
				}
				return err
			}

			if err := read("r0"); err != nil {
				t.Fatal(err)
			}
			if got := counter.take(); got["GET"] != 1 || got["LIST"] != 0 {
				t.Fatalf("first read: %v, want one GET", got)
			}
			var wg sync.WaitGroup
			for i := 1; i < 5; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := read(fmt.Sprintf("r%d", i)); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if got := counter.take(); got["GET"] != 0 || got["LIST"] != 1 {
				t.Fatalf("four concurrent reads: %v, want one LIST", got)
			}
			if err := read("absent"); !apierrors.IsNotFound(err) {
				t.Fatalf("absent Application: %v, want NotFound", err)
			}
			if got := counter.take(); len(got) != 0 {
				t.Fatalf("read of an absent Application sent %v, want none", got)
			}
			// A write of this provider makes the snapshot stale for that
			// name only: its next read is a GET, the others stay answered.
			reads.invalidate(e.namespace, "r1")
			if err := read("r1"); err != nil {
				t.Fatal(err)
			}
			if err := read("r2"); err != nil {
				t.Fatal(err)
			}
			if got := counter.take(); got["GET"] != 1 || got["LIST"] != 0 {
				t.Fatalf("reads after a write: %v, want one GET of the written name", got)
			}

			// Without the right to list, reads fall back to GETs after one try.
			counter.mu.Lock()
			counter.forbidList = true
			counter.mu.Unlock()
			reads = newApplicationReads(src, 0)
			for _, name := range []string{"r0", "r1", "r2", "r3"} {
				if err := read(name); err != nil {
					t.Fatal(err)
				}
			}
			if got := counter.take(); got["GET"] != 4 || got["LIST"] != 1 {
				t.Fatalf("reads without list: %v, want 4 GETs and 1 LIST", got)
			}
		})
	}
}

// hasSpec reports whether a read returned the object's spec.
func hasSpec(obj *unstructured.Unstructured) bool {
	_, ok := obj.Object["spec"]
	return ok
}
