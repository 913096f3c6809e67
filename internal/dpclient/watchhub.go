package dpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

// hubLinger is how long a watch outlives its last waiter: the next write of
// the same apply or destroy usually comes within it, and finds the watch
// running.
const hubLinger = 5 * time.Second

// hubGather is how long a new watch waits before its request, so that the
// waits of writes answered together (an apply or a destroy runs several at
// once) start it from the oldest of their writes and need no read of their
// own.
const hubGather = 50 * time.Millisecond

// hubBackoff is the schedule of re-watches after an error or an empty stream.
var hubBackoff = Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second}

// watchHub holds the shared watches of one Client. Its waits share one
// watch of Applications per namespace: the first waiter of a namespace starts it from the resourceVersion its own
// write returned, every event goes to the waiters of its object's name, and
// the watch ends hubLinger after the last waiter left.
//
// Ordering. Every event the watch delivers is newer than the resourceVersion
// it started from (from), in the order etcd wrote them. A waiter gets only
// the events newer than its own write. One that joins after the watch has
// passed its write finds what it missed in latest (the last event of every
// name since from, kept for hubLinger). One whose write is older than from
// (it joined a running watch later than a waiter of a newer write started
// it), or than an event of its name no longer kept, reads its object once
// (resync) and takes the watch's events from there. resourceVersions
// are compared as the numbers etcd gives them (kube-apiserver's watch cache
// compares them the same way); one that is not a number is taken for newer,
// and the generation check of VerdictOf keeps an older status from counting.
//
// Faults. A watch that ends or is cut is started again from the last event or
// bookmark, at once after progress, else after a capped exponential backoff.
// An expired resourceVersion (410) lists the namespace once, gives each
// waiter its object (or its deletion), and watches from the list. Transient
// errors are handed to the waiters as their last error. A LIST the server
// refuses (RBAC without list) leaves each waiter to read its own object, and
// the watch starts again at the most recent version. A namespace's watch the
// server refuses (403: RBAC that names the Applications it allows) moves its
// waiters to watches of their own names. Any other error (the client's
// verdict on the API server, a refused watch of a name) ends every wait of
// the watch with it. Each waiter's own context bounds only its wait: a
// waiter that leaves never ends another's. Each watch request is bounded by
// the request timeout, so an API server that does not answer the watch trips
// the client's verdict as a held read does.
type watchHub struct {
	src    hubSource
	gather time.Duration // hubGather
	mu     sync.Mutex
	ns     map[string]*nsWatch // by key: the namespace, or namespace/name
	// byName holds the namespaces whose watch the server refused (RBAC
	// that names the Applications it allows): their waits watch their own
	// Application, by a field selector on its name.
	byName map[string]bool
}

func newWatchHub(src hubSource) *watchHub {
	return &watchHub{src: src, gather: hubGather, ns: map[string]*nsWatch{}, byName: map[string]bool{}}
}

// hubSource is what the shared watches read, each request bounded by the
// request timeout and ending with the client's verdict on the API server
// when there is one (watchsource.go gives the Client's). The hub knows
// nothing else of the client.
type hubSource interface {
	// watch opens a watch of the Applications of namespace ns.
	watch(ctx context.Context, ns string, opts metav1.ListOptions) (watch.Interface, error)
	// list lists the Applications of ns, in one request.
	list(ctx context.Context, ns string) (*unstructured.UnstructuredList, error)
	// get reads one Application, retrying transient errors until ctx ends.
	get(ctx context.Context, ns, name string) (*unstructured.Unstructured, error)
	// requestTimeout bounds each request.
	requestTimeout() time.Duration
	log(ctx context.Context, msg string, fields map[string]any)
}

// nsWatch is the watch of one namespace. Its fields are guarded by the hub's
// mutex.
type nsWatch struct {
	hub    *watchHub
	ns     string
	key    string // in hub.ns
	only   string // the one name watched (a field selector), or "" for all
	byName map[string]map[*waiter]struct{}
	count  int
	// latest is the last event of each name since from, kept for hubLinger
	// (a waiter joins within moments of its write); pruned is the
	// resourceVersion of each name's event that is no longer kept: a waiter
	// of an older write reads its object once.
	latest    map[string]keptEvent
	pruned    map[string]string
	lastSweep time.Time
	// from is where the current stream started: every event after it was
	// delivered. at is the last event or bookmark seen.
	from, at  string
	streaming bool // from is fixed: the stream was requested
	cancel    context.CancelFunc
	idle      *time.Timer
}

// hubEvent is what a waiter is told.
type hubEvent struct {
	obj     *unstructured.Unstructured // the object's new version; nil when deleted
	deleted bool
	rejoin  bool // the namespace's watch was refused: join a watch of the name
	rv      string
	err     error // the watch failed for good
	note    error // a transient error the watch retries
}

// keptEvent is an event the watch delivered, and when.
type keptEvent struct {
	ev hubEvent
	at time.Time
}

// hasError reports whether ev tells of the watch's trouble, not of an object.
func (ev hubEvent) hasError() bool { return ev.err != nil || ev.note != nil || ev.rejoin }

// waiter is one wait on one Application.
type waiter struct {
	ns, name string
	hub      *watchHub
	rv       string // the waiter's write: events at or before it are not news
	seen     string // the newest version the waiter took (guarded by mu)
	nw       *nsWatch

	mu     sync.Mutex
	queue  []hubEvent
	resync bool // the watch did not see every event since rv
	notify chan struct{}
}

// join registers a wait on namespace/name, whose own write returned rv.
func (h *watchHub) join(ns, name, rv string) *waiter {
	w := &waiter{ns: ns, name: name, hub: h, rv: rv, seen: rv, notify: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.attach(w)
	return w
}

// rejoin moves w from a namespace's watch the server refused to a watch of
// its own name, from the last version it took.
func (h *watchHub) rejoin(w *waiter) {
	w.mu.Lock()
	seen := w.seen
	w.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.detach(w)
	w.rv = seen
	h.attach(w)
}

// attach registers w on the watch of its namespace (or name), starting it
// when there is none. The caller holds the hub's mutex.
func (h *watchHub) attach(w *waiter) {
	ns, name, rv := w.ns, w.name, w.rv
	key, only := ns, ""
	if h.byName[ns] {
		key, only = ns+"/"+name, name
	}
	nw := h.ns[key]
	if nw == nil {
		ctx, cancel := context.WithCancel(context.Background())
		nw = &nsWatch{hub: h, ns: ns, key: key, only: only, byName: map[string]map[*waiter]struct{}{}, latest: map[string]keptEvent{},
			pruned: map[string]string{}, from: rv, cancel: cancel}
		h.ns[key] = nw
		go nw.run(ctx)
	}
	if nw.idle != nil {
		nw.idle.Stop()
		nw.idle = nil
	}
	w.nw = nw
	if nw.byName[name] == nil {
		nw.byName[name] = map[*waiter]struct{}{}
	}
	nw.byName[name][w] = struct{}{}
	nw.count++
	switch {
	case !nw.streaming && newer(nw.from, rv):
		nw.from = rv // the stream is not requested yet: it starts at the oldest write
	case newer(nw.from, rv):
		w.resync = true
	}
	if k, ok := nw.latest[name]; ok && newer(k.ev.rv, rv) {
		w.queue = append(w.queue, k.ev)
		w.notify <- struct{}{}
	} else if p, ok := nw.pruned[name]; ok && newer(p, rv) {
		w.resync = true
	}
}

// leave ends a wait; the namespace's watch ends hubLinger after its last
// waiter left.
func (h *watchHub) leave(w *waiter) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.detach(w)
}

// detach removes w from its watch. The caller holds the hub's mutex.
func (h *watchHub) detach(w *waiter) {
	nw := w.nw
	if _, ok := nw.byName[w.name][w]; !ok {
		return
	}
	delete(nw.byName[w.name], w)
	if len(nw.byName[w.name]) == 0 {
		delete(nw.byName, w.name)
		nw.prune(w.name)
	}
	nw.count--
	if nw.count > 0 || h.ns[nw.key] != nw {
		return
	}
	nw.idle = time.AfterFunc(hubLinger, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if nw.count == 0 && h.ns[nw.key] == nw {
			h.retire(nw)
		}
	})
}

// retire stops a namespace's watch; the next waiter starts a new one. The
// caller holds the hub's mutex.
func (h *watchHub) retire(nw *nsWatch) {
	if h.ns[nw.key] == nw {
		delete(h.ns, nw.key)
	}
	nw.cancel()
}

// push queues ev for w. The caller holds the hub's mutex.
func (w *waiter) push(ev hubEvent) {
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// next returns the waiter's next event, reading the object first when the
// watch did not see every event since the waiter's write. It fails only when
// ctx ends (with the context's error) or the read fails.
func (w *waiter) next(ctx context.Context) (hubEvent, error) {
	for {
		w.mu.Lock()
		if w.resync {
			w.resync = false
			w.mu.Unlock()
			return w.read(ctx)
		}
		ev, ok := w.popLocked()
		w.mu.Unlock()
		if ok && ev.rejoin {
			w.hub.rejoin(w)
			continue
		}
		if ok {
			return ev, nil
		}
		select {
		case <-ctx.Done():
			return hubEvent{}, ctx.Err()
		case <-w.notify:
		}
	}
}

// popLocked takes the next event that is news to the waiter; the caller
// holds w.mu.
func (w *waiter) popLocked() (hubEvent, bool) {
	for len(w.queue) > 0 {
		ev := w.queue[0]
		w.queue = w.queue[1:]
		switch {
		case ev.hasError(), ev.rv == "":
			return ev, true
		case newer(ev.rv, w.seen):
			w.seen = ev.rv
			return ev, true
		}
	}
	return hubEvent{}, false
}

// read GETs the waiter's object.
func (w *waiter) read(ctx context.Context) (hubEvent, error) {
	u, err := w.hub.src.get(ctx, w.ns, w.name)
	switch {
	case apierrors.IsNotFound(err):
		return hubEvent{deleted: true}, nil
	case err != nil:
		return hubEvent{}, err
	}
	w.mu.Lock()
	w.seen = u.GetResourceVersion()
	w.mu.Unlock()
	return hubEvent{obj: u, rv: u.GetResourceVersion()}, nil
}

// newer reports whether resourceVersion a is after b. Versions that are not
// numbers are taken for newer.
func newer(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return a != b
	}
	return x > y
}

// run watches the namespace until the hub retires it.
func (nw *nsWatch) run(ctx context.Context) {
	src := nw.hub.src
	b := hubBackoff
	if sleep(ctx, nw.hub.gather) != nil {
		return
	}
	for ctx.Err() == nil {
		progress, err := nw.stream(ctx)
		if errors.Is(err, errGone) {
			// The resourceVersion expired: list once, then watch from the
			// list after the backoff (a server that answers every watch
			// with 410 is not asked again at once).
			err = nw.relist(ctx)
			progress = false
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil && !hubRetries(err) {
			nw.fail(err)
			return
		}
		if err != nil {
			nw.broadcast(hubEvent{note: err})
			src.log(ctx, "watch of Applications interrupted; retrying", map[string]any{"namespace": nw.ns, "error": err.Error()})
		}
		if progress {
			b.Reset()
			continue
		}
		if sleep(ctx, b.Next()) != nil {
			return
		}
	}
}

// hubRetries reports whether the shared watch retries after err.
func hubRetries(err error) bool {
	var terr *transientError
	switch c := Classify(err); {
	case c.Verdict() || c == ClassMisconfigured:
		return false
	case c.RateLimited() || c.Transient():
		return true
	}
	return errors.Is(err, errGone) || errors.As(err, &terr) || errors.Is(err, context.DeadlineExceeded)
}

// start fixes where the next stream starts.
func (nw *nsWatch) start() string {
	nw.hub.mu.Lock()
	defer nw.hub.mu.Unlock()
	if !nw.streaming {
		nw.streaming = true
		nw.at = nw.from
	}
	return nw.at
}

// stream runs one watch request from the last position; it reports whether
// the stream made progress (an event, or it ran to its end).
func (nw *nsWatch) stream(ctx context.Context) (bool, error) {
	src := nw.hub.src
	rv := nw.start()
	timeout := src.requestTimeout()
	opts := metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}
	if nw.only != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", nw.only).String()
	}
	if s := int64(timeout/time.Second) - 1; s >= 1 {
		opts.TimeoutSeconds = &s // the server ends the stream before the client does
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	started := time.Now()
	w, err := src.watch(wctx, nw.ns, opts)
	if err != nil {
		return false, err
	}
	defer w.Stop()
	progress := false
	for {
		select {
		case <-wctx.Done():
			return true, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return progress || time.Since(started) >= timeout/2, nil
			}
			done, err := nw.handle(ev)
			progress = progress || done
			if err != nil {
				return progress, err
			}
		}
	}
}

// handle takes one event of the stream.
func (nw *nsWatch) handle(ev watch.Event) (bool, error) {
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			return false, nil
		}
		nw.deliver(u.GetName(), hubEvent{obj: u, deleted: ev.Type == watch.Deleted, rv: u.GetResourceVersion()})
		return true, nil
	case watch.Bookmark:
		if u, ok := ev.Object.(*unstructured.Unstructured); ok {
			nw.hub.mu.Lock()
			nw.at = u.GetResourceVersion()
			nw.hub.mu.Unlock()
		}
		return true, nil
	case watch.Error:
		err := apierrors.FromObject(ev.Object)
		var se apierrors.APIStatus
		if errors.As(err, &se) && (se.Status().Code == http.StatusGone || apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) {
			return false, errGone
		}
		// An ERROR event of a watch that was accepted is the server's or a
		// proxy's trouble: it is retried.
		return false, &transientError{fmt.Errorf("watch error event: %w", err)}
	}
	return false, nil
}

// deliver records ev of name and hands it to the waiters of name.
func (nw *nsWatch) deliver(name string, ev hubEvent) {
	nw.hub.mu.Lock()
	defer nw.hub.mu.Unlock()
	if ev.rv != "" {
		nw.at = ev.rv
	}
	now := time.Now()
	nw.latest[name] = keptEvent{ev: ev, at: now}
	for w := range nw.byName[name] {
		w.push(ev)
	}
	if now.Sub(nw.lastSweep) >= time.Second {
		nw.lastSweep = now
		for n, k := range nw.latest {
			if now.Sub(k.at) > hubLinger {
				nw.prune(n)
			}
		}
	}
}

// prune drops the kept event of name. The caller holds the hub's mutex.
func (nw *nsWatch) prune(name string) {
	if k, ok := nw.latest[name]; ok {
		nw.pruned[name] = k.ev.rv
		delete(nw.latest, name)
	}
}

// broadcast hands ev to every waiter of the namespace.
func (nw *nsWatch) broadcast(ev hubEvent) {
	nw.hub.mu.Lock()
	defer nw.hub.mu.Unlock()
	nw.broadcastLocked(ev)
}

func (nw *nsWatch) broadcastLocked(ev hubEvent) {
	for _, ws := range nw.byName {
		for w := range ws {
			w.push(ev)
		}
	}
}

// fail ends every wait of the namespace with err and retires the watch.
func (nw *nsWatch) fail(err error) {
	nw.hub.mu.Lock()
	defer nw.hub.mu.Unlock()
	if nw.only == "" && apierrors.IsForbidden(err) {
		// RBAC that allows the watch of named Applications only (a Role
		// with resourceNames): each wait watches its own name.
		nw.hub.byName[nw.ns] = true
		nw.broadcastLocked(hubEvent{rejoin: true})
	} else {
		nw.broadcastLocked(hubEvent{err: err})
	}
	nw.hub.retire(nw)
}

// relist lists the namespace after an expired resourceVersion: each waiter
// whose write the list covers gets its object, or its deletion when the list
// lacks it; the watch goes on from the list.
func (nw *nsWatch) relist(ctx context.Context) error {
	b := Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second}
	var r retries
	for {
		list, err := nw.hub.src.list(ctx, nw.ns)
		if err == nil {
			nw.resume(list)
			return nil
		}
		if listRefused(err) {
			nw.readAll()
			return nil
		}
		if !r.again(err) || ctx.Err() != nil {
			return err
		}
		if sleep(ctx, b.Next()) != nil {
			return err
		}
	}
}

// readAll is the answer to an expired resourceVersion when the server
// refuses the LIST (RBAC without list): every waiter reads its own object,
// and the watch starts again at the most recent version, whose first events
// are every object of the namespace as it then is (what a waiter's read came
// too early to see). Waiters that join it read their object too.
func (nw *nsWatch) readAll() {
	nw.hub.mu.Lock()
	defer nw.hub.mu.Unlock()
	for _, ws := range nw.byName {
		for w := range ws {
			w.mu.Lock()
			w.resync = true
			w.mu.Unlock()
			select {
			case w.notify <- struct{}{}:
			default:
			}
		}
	}
	clear(nw.latest)
	clear(nw.pruned)
	nw.from, nw.at = "", ""
}

// resume hands the waiters their objects of list and restarts the stream
// from it.
func (nw *nsWatch) resume(list *unstructured.UnstructuredList) {
	at := list.GetResourceVersion()
	items := make(map[string]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		items[list.Items[i].GetName()] = &list.Items[i]
	}
	nw.hub.mu.Lock()
	defer nw.hub.mu.Unlock()
	for name, ws := range nw.byName {
		u := items[name]
		for w := range ws {
			switch {
			case newer(w.rv, at) && w.rv != "":
				// Written after the list: the watch from the list sees it.
			case u != nil:
				w.push(hubEvent{obj: u, rv: u.GetResourceVersion()})
			default:
				w.push(hubEvent{deleted: true})
			}
		}
	}
	clear(nw.latest)
	clear(nw.pruned)
	nw.from, nw.at = at, at
}
