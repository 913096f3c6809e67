package dpclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// Limits of the namespace snapshots that answer refresh reads.
const (
	// snapshotMaxAge is how long one LIST of a namespace answers reads; a
	// plan over hundreds of Applications takes a few seconds.
	snapshotMaxAge = 10 * time.Second
	// snapshotPageSize is the page size of the LIST.
	snapshotPageSize = 500
)

// applicationReads serves the refresh reads of Applications for one
// configured provider. A refresh reads every Application of the state, and
// one LIST of a namespace costs the API server and the provider far less than
// a GET per Application. The first read in a namespace is a GET, so a state
// with one Application per namespace never lists; from the second read on,
// one LIST of the namespace (consistent, like a GET) answers the reads for
// snapshotMaxAge. A write of the provider in a namespace drops its snapshot;
// after a failed LIST the namespace is read with GETs.
type applicationReads struct {
	mu sync.Mutex
	ns map[string]*namespaceReads
}

type namespaceReads struct {
	asked  int
	snap   *appSnapshot
	noList bool // a LIST failed (RBAC without list, for one): GETs only
}

// appSnapshot is one LIST of a namespace; its fields are set before done closes.
type appSnapshot struct {
	done  chan struct{}
	taken time.Time
	items map[string]*unstructured.Unstructured
	err   error
}

// usable reports whether the snapshot is being taken, or was taken without
// error less than snapshotMaxAge ago.
func (s *appSnapshot) usable(now time.Time) bool {
	select {
	case <-s.done:
		return s.err == nil && now.Sub(s.taken) < snapshotMaxAge
	default:
		return true
	}
}

func newApplicationReads() *applicationReads {
	return &applicationReads{ns: map[string]*namespaceReads{}}
}

// GetApplication returns the Application namespace/name for a refresh (a
// NotFound error when it does not exist), each request bounded by the read
// timeout. The object is shared: callers must not modify it.
func (c *Client) GetApplication(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	ctx, cancel := c.readCtx(ctx)
	defer cancel()
	obj, err := c.apps.get(ctx, c.dyn, namespace, name)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, &ReadError{What: fmt.Sprintf("Application %s/%s", namespace, name), Err: err}
	}
	return obj, err
}

// get returns the Application namespace/name (a NotFound error when it does
// not exist). The object is shared: callers must not modify it.
func (a *applicationReads) get(ctx context.Context, dyn dynamic.Interface, namespace, name string) (*unstructured.Unstructured, error) {
	client := dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace)
	a.mu.Lock()
	r := a.ns[namespace]
	if r == nil {
		r = &namespaceReads{}
		a.ns[namespace] = r
	}
	r.asked++
	if r.snap != nil && !r.snap.usable(time.Now()) {
		r.snap = nil
	}
	s, take := r.snap, false
	if s == nil && r.asked > 1 && !r.noList {
		s, take = &appSnapshot{done: make(chan struct{})}, true
		r.snap = s
	}
	a.mu.Unlock()

	if s == nil {
		return client.Get(ctx, name, metav1.GetOptions{})
	}
	if take {
		s.items, s.err = listAll(ctx, client)
		s.taken = time.Now()
		close(s.done)
		if s.err != nil && ctx.Err() == nil {
			a.mu.Lock()
			r.noList = true
			a.mu.Unlock()
		}
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.err != nil {
		return client.Get(ctx, name, metav1.GetOptions{})
	}
	if obj, ok := s.items[name]; ok {
		return obj, nil
	}
	return nil, apierrors.NewNotFound(dpapi.ApplicationGVR.GroupResource(), name)
}

// forget drops the snapshot of a namespace the provider wrote to.
func (a *applicationReads) forget(namespace string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.ns[namespace]; r != nil {
		r.snap = nil
	}
}

func listAll(ctx context.Context, client dynamic.ResourceInterface) (map[string]*unstructured.Unstructured, error) {
	items := map[string]*unstructured.Unstructured{}
	err := listPages(ctx, client, snapshotPageSize, 0, func(obj *unstructured.Unstructured) {
		items[obj.GetName()] = obj
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// listPages LISTs client in pages of size and calls fn for every object;
// with timeout > 0 each page request is bounded by it.
func listPages(ctx context.Context, client dynamic.ResourceInterface, size int64, timeout time.Duration, fn func(*unstructured.Unstructured)) error {
	opts := metav1.ListOptions{Limit: size}
	for {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			pctx, cancel = context.WithTimeout(ctx, timeout)
		}
		list, err := client.List(pctx, opts)
		cancel()
		if err != nil {
			return err
		}
		for i := range list.Items {
			fn(&list.Items[i])
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}

// ListApplications calls fn for every Application of namespace (one paged
// LIST, each page bounded by the read timeout).
func (c *Client) ListApplications(ctx context.Context, namespace string, fn func(*unstructured.Unstructured)) error {
	return listPages(ctx, c.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace), snapshotPageSize, c.opts.ReadTimeout, fn)
}

// ListPackageVersions calls fn for every ApplicationPackageVersion (one
// paged LIST, each page bounded by the read timeout).
func (c *Client) ListPackageVersions(ctx context.Context, fn func(*unstructured.Unstructured)) error {
	return listPages(ctx, c.dyn.Resource(dpapi.ApplicationPackageVersionGVR), snapshotPageSize, c.opts.ReadTimeout, fn)
}
