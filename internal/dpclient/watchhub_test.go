package dpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
)

// stopWatches ends the client's shared watches, lingering or not.
func stopWatches(c *Client) {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	for _, nw := range c.hub.ns {
		c.hub.retire(nw)
	}
}

// waitersIn is the number of waits on the shared watch of namespace ns.
func waitersIn(c *Client, ns string) int {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	if nw := c.hub.ns[ns]; nw != nil {
		return nw.count
	}
	return 0
}

// hubSawVerdict reports whether the hub's last event of ns/name carries
// DP's verdict: the event of the status, not only of the object's creation.
func hubSawVerdict(c *Client, ns, name string) bool {
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	nw := c.hub.ns[ns]
	if nw == nil {
		return false
	}
	k, ok := nw.latest[name]
	return ok && k.ev.obj != nil && VerdictOf(k.ev.obj, "").Done
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waits runs Wait on each object in the background, one after another in
// the order given (each joins the shared watch before the next starts).
type waits struct {
	wg   sync.WaitGroup
	errs []error
}

func startWaits(t *testing.T, ctx context.Context, c *Client, objs ...*unstructured.Unstructured) *waits {
	t.Helper()
	ws := &waits{errs: make([]error, len(objs))}
	joined := map[string]int{}
	for i, obj := range objs {
		ws.wg.Add(1)
		go func() {
			defer ws.wg.Done()
			_, ws.errs[i] = c.Wait(ctx, obj, WaitOptions{})
		}()
		joined[obj.GetNamespace()]++
		n := joined[obj.GetNamespace()]
		eventually(t, "the wait joined", func() bool { return waitersIn(c, obj.GetNamespace()) == n })
	}
	return ws
}

func (ws *waits) done(t *testing.T) {
	t.Helper()
	ws.wg.Wait()
	for i, err := range ws.errs {
		if err != nil {
			t.Errorf("wait %d: %v", i, err)
		}
	}
}

// The waits of one namespace share one watch, and a wait that starts just
// after the last one ended still finds it running.
func TestSharedWait_WaitersOfANamespaceShareOneWatch(t *testing.T) {
	f := newFakeAPI(t)
	c := newClient(t, f, 5*time.Second)
	var objs []*unstructured.Unstructured
	for _, ns := range []string{"a", "b"} {
		for i := range 10 {
			objs = append(objs, f.Put(ns, fmt.Sprintf("app%d", i), map[string]any{"generation": int64(1)}))
		}
	}
	ws := startWaits(t, context.Background(), c, objs...)
	for _, o := range objs {
		f.SetStatus(o.GetNamespace(), o.GetName(), applied(1))
	}
	ws.done(t)
	later := startWaits(t, context.Background(), c, f.Put("a", "later", map[string]any{"generation": int64(1)}))
	f.SetStatus("a", "later", applied(1))
	later.done(t)
	if n := f.Count("WATCH"); n != 2 {
		t.Errorf("%d watch requests for 21 waits in 2 namespaces, want 2", n)
	}
	if n := f.Count("GET"); n != 0 {
		t.Errorf("%d GET requests, want none: every write gave its resourceVersion", n)
	}
}

// Waits of writes answered together join in any order: the watch starts
// from the oldest of their writes, and none of them reads its object.
func TestSharedWait_WritesAnsweredTogetherStartTheWatchAtTheOldest(t *testing.T) {
	f := newFakeAPI(t)
	c := newClient(t, f, 5*time.Second)
	c.hub.gather = 2 * time.Second
	var objs []*unstructured.Unstructured
	for i := range 5 {
		objs = append([]*unstructured.Unstructured{f.Put("ns", fmt.Sprintf("app%d", i), map[string]any{"generation": int64(1)})}, objs...)
	}
	ws := startWaits(t, context.Background(), c, objs...) // the newest write first
	for _, o := range objs {
		f.SetStatus(o.GetNamespace(), o.GetName(), applied(1))
	}
	ws.done(t)
	if n := f.Count("WATCH"); n != 1 {
		t.Errorf("%d watch requests, want 1", n)
	}
	if n := f.Count("GET"); n != 0 {
		t.Errorf("%d GET requests, want none", n)
	}
}

// One wait's deadline ends that wait only: another wait on the same watch
// goes on to DP's verdict.
func TestSharedWait_OneWaitsDeadlineDoesNotEndAnothers(t *testing.T) {
	f := newFakeAPI(t)
	c := newClient(t, f, 5*time.Second)
	short := f.Put("ns", "short", map[string]any{"generation": int64(1)})
	long := f.Put("ns", "long", map[string]any{"generation": int64(1)})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	ws := startWaits(t, context.Background(), c, long)
	_, err := c.Wait(ctx, short, WaitOptions{})
	var we *WaitError
	if !errors.As(err, &we) || !we.Timeout {
		t.Fatalf("the short wait: %v, want a timeout", err)
	}
	f.SetStatus("ns", "long", applied(1))
	ws.done(t)
	if n := f.Count("WATCH"); n != 1 {
		t.Errorf("%d watch requests, want 1", n)
	}
}

// A watch cut or expired (410) while DP gives its verdict: the shared watch
// resumes from where it was (or lists the namespace once) and the verdict
// still ends the wait.
func TestSharedWait_FaultMidWaitLosesNoEvent(t *testing.T) {
	tests := []struct {
		name       string
		compact    bool
		forbidList bool // RBAC without list
		lists      int
		gets       int
	}{
		{"a cut stream resumes from the last event", false, false, 0, 0},
		{"410 Gone lists the namespace once and resumes", true, false, 1, 0},
		{"410 Gone without list reads the waited object and resumes", true, true, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			if tt.forbidList {
				f.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
					if r.Method != http.MethodGet || r.URL.Query().Get("watch") == "true" || strings.Count(r.URL.Path, "/") != 6 {
						return false
					}
					dpfake.Status(w, http.StatusForbidden, "Forbidden", "list is forbidden")
					return true
				})
			}
			c := newClient(t, f, 5*time.Second)
			obj := f.Put("ns", "a", map[string]any{"generation": int64(1)})
			ws := startWaits(t, context.Background(), c, obj)
			eventually(t, "the watch is open", func() bool { return f.Count("WATCH") == 1 })
			f.CutWatches(tt.compact)
			least := 2
			if tt.compact {
				// The list (or read) after the 410 may already show the
				// verdict and end the wait before the watch resumes. (The
				// fake answers every watch from before the verdict with 410,
				// so the verdict cannot wait for the resumed watch here.)
				least = 1
			} else {
				// Only the resumed watch can carry a verdict given after it
				// started: the cut one might deliver it before it ends.
				eventually(t, "the watch resumed", func() bool { return f.Count("WATCH") >= 2 })
			}
			f.SetStatus("ns", "a", applied(1))
			ws.done(t)
			// The one cut or expired, the one that resumed, and after a
			// list, maybe the one from the list already.
			if n := f.Count("WATCH"); n < least || n > 2+tt.lists {
				t.Errorf("%d watch requests, want %d to %d", n, least, 2+tt.lists)
			}
			if n := f.Count("GET /apis/deckhouse.io/v1alpha1/namespaces/ns/applications"); n != tt.lists+tt.gets {
				t.Errorf("%d lists and reads, want %d and %d", n, tt.lists, tt.gets)
			}
		})
	}
}

// DP's verdict that came before the wait joined is seen: from the watch
// that starts at the wait's own write, from what a running watch delivered,
// or, for a write older than the running watch, from one read.
func TestSharedWait_VerdictBeforeTheWaitJoinedIsSeen(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *dpfake.Server, c *Client, t *testing.T) (*unstructured.Unstructured, *waits)
		gets  int
	}{
		{"done before the watch started", func(f *dpfake.Server, _ *Client, _ *testing.T) (*unstructured.Unstructured, *waits) {
			obj := f.Put("ns", "b", map[string]any{"generation": int64(1)})
			f.SetStatus("ns", "b", applied(1))
			return obj, nil
		}, 0},
		{"done on a running watch before the wait joined", func(f *dpfake.Server, c *Client, t *testing.T) (*unstructured.Unstructured, *waits) {
			ws := startWaits(t, context.Background(), c, f.Put("ns", "a", map[string]any{"generation": int64(1)}))
			eventually(t, "the watch is open", func() bool { return f.Count("WATCH") == 1 })
			obj := f.Put("ns", "b", map[string]any{"generation": int64(1)})
			f.SetStatus("ns", "b", applied(1))
			eventually(t, "the watch delivered the verdict", func() bool { return hubSawVerdict(c, "ns", "b") })
			return obj, ws
		}, 0},
		{"done on a running watch, no longer kept when the wait joined", func(f *dpfake.Server, c *Client, t *testing.T) (*unstructured.Unstructured, *waits) {
			ws := startWaits(t, context.Background(), c, f.Put("ns", "a", map[string]any{"generation": int64(1)}))
			eventually(t, "the watch is open", func() bool { return f.Count("WATCH") == 1 })
			obj := f.Put("ns", "b", map[string]any{"generation": int64(1)})
			f.SetStatus("ns", "b", applied(1))
			eventually(t, "the watch delivered the verdict", func() bool { return hubSawVerdict(c, "ns", "b") })
			c.hub.mu.Lock()
			c.hub.ns["ns"].prune("b")
			c.hub.mu.Unlock()
			return obj, ws
		}, 1},
		{"done before a running watch that started later", func(f *dpfake.Server, c *Client, t *testing.T) (*unstructured.Unstructured, *waits) {
			obj := f.Put("ns", "b", map[string]any{"generation": int64(1)})
			f.SetStatus("ns", "b", applied(1))
			ws := startWaits(t, context.Background(), c, f.Put("ns", "a", map[string]any{"generation": int64(1)}))
			eventually(t, "the watch is open", func() bool { return f.Count("WATCH") == 1 })
			return obj, ws
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			c := newClient(t, f, 5*time.Second)
			obj, others := tt.setup(f, c, t)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			got, err := c.Wait(ctx, obj, WaitOptions{})
			if err != nil || !VerdictOf(got, "").Done {
				t.Fatalf("wait: %v (last %s), want DP's verdict", err, StatusSummary(got))
			}
			if others != nil {
				f.SetStatus("ns", "a", applied(1))
				others.done(t)
			}
			if n := f.Count("WATCH"); n != 1 {
				t.Errorf("%d watch requests, want 1", n)
			}
			if n := f.Count("GET /apis/deckhouse.io/v1alpha1/namespaces/ns/applications/b"); n != tt.gets {
				t.Errorf("%d reads of the Application, want %d", n, tt.gets)
			}
		})
	}
}

// A destroy sends only the DELETE: its answer says the Application is gone,
// or gives the version the finalizers hold, whose deletion the shared watch
// of the namespace then sees.
func TestSharedWait_DeleteSendsOnlyTheDeleteAndSharesTheWatch(t *testing.T) {
	tests := []struct {
		name       string
		finalizers bool
		watches    int
	}{
		{"no finalizers: gone with the answer", false, 0},
		{"finalizers: one watch for every delete", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			c := newClient(t, f, 5*time.Second)
			meta := map[string]any{}
			if tt.finalizers {
				meta["finalizers"] = []any{"packages.deckhouse.io/application"}
			}
			const n = 5
			for i := range n {
				f.Put("ns", fmt.Sprintf("app%d", i), meta)
			}
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					name := fmt.Sprintf("app%d", i)
					errs[i] = c.Delete(context.Background(), "ns", name, "uid-"+name, true)
				}()
				if tt.finalizers {
					eventually(t, "the delete waits", func() bool { return waitersIn(c, "ns") == i+1 })
				}
			}
			for i := range n {
				if tt.finalizers {
					f.Finalize("ns", fmt.Sprintf("app%d", i))
				}
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("delete %d: %v", i, err)
				}
			}
			if got := f.Count("DELETE"); got != n {
				t.Errorf("%d DELETE requests, want %d", got, n)
			}
			if got := f.Count("WATCH"); got != tt.watches {
				t.Errorf("%d watch requests, want %d", got, tt.watches)
			}
			if got := f.Count("GET"); got != 0 {
				t.Errorf("%d GET requests, want none", got)
			}
		})
	}
}

// RBAC that allows the watch of named Applications only (a Role with
// resourceNames) refuses the namespace's watch: each wait watches its own
// name instead, and still sees DP's verdict.
func TestSharedWait_RefusedNamespaceWatchFallsBackToAWatchPerName(t *testing.T) {
	f := newFakeAPI(t)
	f.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("watch") == "true" && r.URL.Query().Get("fieldSelector") == "" {
			dpfake.Status(w, http.StatusForbidden, "Forbidden", "watch is forbidden")
			return true
		}
		return false
	})
	c := newClient(t, f, 5*time.Second)
	c.hub.gather = time.Second // both waits join the namespace's watch before its request
	objs := []*unstructured.Unstructured{
		f.Put("ns", "a", map[string]any{"generation": int64(1)}),
		f.Put("ns", "b", map[string]any{"generation": int64(1)}),
	}
	ws := startWaits(t, context.Background(), c, objs...)
	eventually(t, "each wait watches its name", func() bool { return f.Count("WATCH") == 3 })
	for _, o := range objs {
		f.SetStatus(o.GetNamespace(), o.GetName(), applied(1))
	}
	ws.done(t)
}

// A server that accepts the watch and never answers it trips the client's
// verdict after one request timeout, and every wait of every namespace ends
// with it.
func TestSharedWait_HeldWatchCostsOneDeadline(t *testing.T) {
	f := newFakeAPI(t)
	f.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("watch") == "true" {
			return dpfake.Hold(w, r)
		}
		return false
	})
	const deadline = 400 * time.Millisecond
	c := newClient(t, f, deadline)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	started := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		obj := f.Put(fmt.Sprintf("ns%d", i%2), fmt.Sprintf("app%d", i), map[string]any{"generation": int64(1)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Wait(ctx, obj, WaitOptions{})
		}()
	}
	wg.Wait()
	if d := time.Since(started); d > deadline+2*time.Second {
		t.Fatalf("6 waits on held watches took %s with a %s deadline, want one deadline", d, deadline)
	}
	for _, err := range errs {
		var ue *UnreachableError
		if !errors.As(err, &ue) {
			t.Fatalf("wait: %v, want the verdict", err)
		}
	}
}
