package dpclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/outage"
)

// Limits of the namespace snapshots that answer refresh reads.
const (
	// snapshotMaxAge is how long one LIST of a namespace answers reads; a
	// plan over hundreds of Applications takes a few seconds.
	snapshotMaxAge = 10 * time.Second
	// snapshotPageSize is the page size of the LIST.
	snapshotPageSize = 500
)

// applicationReads serves the reads of Applications for one configured
// provider. A refresh reads every Application of the state, and one LIST of
// a namespace costs the API server and the provider far less than a GET per
// Application. The first read in a namespace is a GET, so a state with one
// Application per namespace never lists; from the second read on, one LIST
// of the namespace (consistent, like a GET) answers the reads for
// snapshotMaxAge. Concurrent GETs of one Application share one request.
//
// A failed read is remembered as long as a good one: for snapshotMaxAge
// every read of the namespace gets its error, and no fallback request (a GET
// after a failed LIST, a LIST after a failed GET) spends a second deadline
// against a server that has just run one out. Only a LIST the server
// refuses (RBAC without list) leaves the namespace to GETs. A write or
// delete of this provider marks the name in the snapshot stale: its next
// read is a GET.
type applicationReads struct {
	src     appSource
	timeout time.Duration // of each request; 0: none
	gets    singleflight.Group
	mu      sync.Mutex
	ns      map[string]*namespaceReads
}

type namespaceReads struct {
	asked  int
	snap   *appSnapshot
	noList bool // the server refused a LIST (RBAC without list, for one): GETs only
}

// appSnapshot is one LIST of a namespace, or the failure of a read in it;
// items, err and taken are set before done closes.
type appSnapshot struct {
	done  chan struct{}
	taken time.Time
	items map[string]*unstructured.Unstructured
	err   error
	stale map[string]bool // names this provider wrote or deleted since: read with a GET
}

// usable reports whether the snapshot is being taken, or was taken (or
// failed) less than snapshotMaxAge ago.
func (s *appSnapshot) usable(now time.Time) bool {
	select {
	case <-s.done:
		return now.Sub(s.taken) < snapshotMaxAge
	default:
		return true
	}
}

func failedSnapshot(err error) *appSnapshot {
	s := &appSnapshot{done: make(chan struct{}), taken: time.Now(), err: err}
	close(s.done)
	return s
}

func newApplicationReads(src appSource, timeout time.Duration) *applicationReads {
	return &applicationReads{src: src, timeout: timeout, ns: map[string]*namespaceReads{}}
}

// requestCtx bounds one request by the read timeout. Callers waiting on a
// shared request are not: they share its outcome.
func (a *applicationReads) requestCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if a.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, a.timeout)
}

// GetApplication returns the Application namespace/name for a refresh (a
// NotFound error when it does not exist), each request bounded by the read
// timeout. The object is shared: callers must not modify it.
func (c *Client) GetApplication(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := c.apps.get(ctx, namespace, name)
	err = c.outage.ShareVerdict(err)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, &ReadError{What: fmt.Sprintf("Application %s/%s", namespace, name), Err: err}
	}
	return obj, err
}

// get returns the Application namespace/name (a NotFound error when it does
// not exist). The object is shared: callers must not modify it.
func (a *applicationReads) get(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
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
		return a.getOne(ctx, r, namespace, name)
	}
	if take {
		a.take(ctx, r, s, namespace)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a.mu.Lock()
	stale := s.stale[name]
	a.mu.Unlock()
	switch {
	case s.err != nil && listRefused(s.err):
		return a.getOne(ctx, r, namespace, name)
	case s.err != nil && !take:
		return nil, outage.NotSentNow(s.err)
	case s.err != nil:
		return nil, s.err
	case stale:
		return a.getOne(ctx, r, namespace, name)
	}
	if obj, ok := s.items[name]; ok {
		return obj, nil
	}
	return nil, apierrors.NewNotFound(dpapi.ApplicationGVR.GroupResource(), name)
}

// take LISTs the namespace into s.
func (a *applicationReads) take(ctx context.Context, r *namespaceReads, s *appSnapshot, namespace string) {
	rctx, cancel := a.requestCtx(ctx)
	items, err := a.src.list(rctx, namespace)
	cancel()
	if err != nil {
		err = outage.StripURL(err)
	}
	// Under the lock: a GET of the namespace may look at s.err while the
	// LIST is in flight (getOne); readers that wait on s.done need no lock.
	a.mu.Lock()
	s.items, s.err, s.taken = items, err, time.Now()
	switch {
	case s.err != nil && listRefused(s.err):
		r.noList = true
	case s.err != nil && ctx.Err() != nil && r.snap == s:
		// The caller's own deadline or cancellation: not the server's answer.
		r.snap = nil
	}
	a.mu.Unlock()
	close(s.done)
}

// listRefused reports whether the server refused a LIST it would answer as
// GETs (RBAC with get and without list).
func listRefused(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err)
}

// getOne GETs one Application; concurrent reads of it share the request,
// and a failure answers the namespace's reads for snapshotMaxAge.
func (a *applicationReads) getOne(ctx context.Context, r *namespaceReads, namespace, name string) (*unstructured.Unstructured, error) {
	v, err, _ := a.gets.Do(namespace+"/"+name, func() (any, error) {
		rctx, cancel := a.requestCtx(ctx)
		obj, err := a.src.get(rctx, namespace, name)
		cancel()
		if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			a.mu.Lock()
			if r.snap == nil || r.snap.err == nil {
				r.snap = failedSnapshot(outage.StripURL(err)) // without the URL of this read
			}
			a.mu.Unlock()
		}
		return obj, err
	})
	obj, _ := v.(*unstructured.Unstructured)
	return obj, err
}

// invalidate marks namespace/name stale after this provider wrote or
// deleted it: the snapshot no longer answers for it.
func (a *applicationReads) invalidate(namespace, name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.ns[namespace]
	if r == nil || r.snap == nil {
		return
	}
	if r.snap.stale == nil {
		r.snap.stale = map[string]bool{}
	}
	r.snap.stale[name] = true
}

// appSource reads the Applications of a namespace: in full through dyn, or
// only their metadata through meta when it is set (enough for the existence
// checks of creates, and a fraction of the bytes).
type appSource struct {
	dyn  dynamic.Interface
	meta metadata.Interface
}

func (s appSource) get(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	if s.meta == nil {
		return s.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	}
	m, err := s.meta.Resource(dpapi.ApplicationGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return metadataObject(m)
}

func (s appSource) list(ctx context.Context, namespace string) (map[string]*unstructured.Unstructured, error) {
	items := map[string]*unstructured.Unstructured{}
	if s.meta == nil {
		err := listPages(ctx, s.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace), snapshotPageSize, 0, func(obj *unstructured.Unstructured) {
			items[obj.GetName()] = refreshView(obj)
		})
		if err != nil {
			return nil, err
		}
		return items, nil
	}
	client := s.meta.Resource(dpapi.ApplicationGVR).Namespace(namespace)
	err := pages(ctx, snapshotPageSize, 0, func(ctx context.Context, opts metav1.ListOptions) (string, error) {
		list, err := client.List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			u, err := metadataObject(&list.Items[i])
			if err != nil {
				return "", err
			}
			items[u.GetName()] = u
		}
		return list.GetContinue(), nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// metadataObject is an Application of which only the metadata was read.
func metadataObject(m *metav1.PartialObjectMetadata) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(m)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// listPages LISTs client in pages of size and calls fn for every object;
// with timeout > 0 each page request is bounded by it.
func listPages(ctx context.Context, client dynamic.ResourceInterface, size int64, timeout time.Duration, fn func(*unstructured.Unstructured)) error {
	return pages(ctx, size, timeout, func(ctx context.Context, opts metav1.ListOptions) (string, error) {
		list, err := client.List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			fn(&list.Items[i])
		}
		return list.GetContinue(), nil
	})
}

// pages runs a LIST in pages of size: page requests one page with opts and
// returns its continue token ("" after the last). With timeout > 0 each page
// request is bounded by it.
func pages(ctx context.Context, size int64, timeout time.Duration, page func(context.Context, metav1.ListOptions) (string, error)) error {
	opts := metav1.ListOptions{Limit: size}
	for {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			pctx, cancel = context.WithTimeout(ctx, timeout)
		}
		next, err := page(pctx, opts)
		cancel()
		if err != nil {
			return err
		}
		if opts.Continue = next; next == "" {
			return nil
		}
	}
}

// ListApplications calls fn for every Application of namespace (one paged
// LIST, each page bounded by the read timeout).
func (c *Client) ListApplications(ctx context.Context, namespace string, fn func(*unstructured.Unstructured)) error {
	return c.outage.ShareVerdict(listPages(ctx, c.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace), snapshotPageSize, c.opts.ReadTimeout, fn))
}

// ListPackageVersions calls fn for every ApplicationPackageVersion (one
// paged LIST, each page bounded by the read timeout).
func (c *Client) ListPackageVersions(ctx context.Context, fn func(*unstructured.Unstructured)) error {
	return c.outage.ShareVerdict(listPages(ctx, c.dyn.Resource(dpapi.ApplicationPackageVersionGVR), snapshotPageSize, c.opts.ReadTimeout, fn))
}
