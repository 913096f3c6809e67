package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// The API-work floor: the requests an apply and a destroy of the deckhouse
// configuration make to the API server, sent by the benchmark itself with
// client-go, with no CLI and no provider logic. An apply is one server-side
// apply PATCH of each Application (the body the provider sends: apiVersion,
// kind, name, namespace and spec with the configured settings, the
// provider's field manager, no force) followed by the wait for
// ConfigurationApplied of the written generation on one watch per namespace;
// a destroy is one DELETE of each with a UID precondition followed by the
// wait for its deletion event on the same kind of watch (the stand-in
// controller's finalizer holds it until the controller lets it go). The
// Applications are the configuration's under names of the same length
// ("api-0001" for "app-0001"), so the floor can run while the provider's
// exist; -parallelism Applications are in flight at once, like the CLI's
// resource operations. What the provider does besides (the create's
// existence check, package version and grant catalog reads, state) is not
// in it: its requests are about 0.05 per Application at N = 1000.

// apiFloorUserAgent tells the floor's requests apart in the audit log.
const apiFloorUserAgent = "scalebench-api-floor"

// apiFloorFieldManager is the provider's default field manager.
const apiFloorFieldManager = "terraform-provider-deckhouse"

// apiFloorTimeout bounds one floor phase.
const apiFloorTimeout = 15 * time.Minute

// Default client limits of the provider.
const (
	providerDefaultQPS   = 100
	providerDefaultBurst = 300
)

// apiFloorName is the floor's name for an Application of the configuration:
// the same length, another prefix.
func apiFloorName(name string) string {
	if rest, ok := strings.CutPrefix(name, "app-"); ok {
		return "api-" + rest
	}
	return "api-" + name
}

// apiFloorObject is the server-side apply body of a: what the provider sends
// for the same resource.
func apiFloorObject(a app) map[string]any {
	return map[string]any{
		"apiVersion": localdp.ApplicationGVR.GroupVersion().String(),
		"kind":       "Application",
		"metadata":   map[string]any{"name": apiFloorName(a.Name), "namespace": a.Namespace},
		"spec": map[string]any{
			"packageName":           benchPackage,
			"packageVersion":        a.Version,
			"packageRepositoryName": benchRepository,
			"settings":              a.Settings,
		},
	}
}

// apiFloor sends the floor's requests.
type apiFloor struct {
	dyn         dynamic.Interface
	parallelism int
	uids        sync.Map // namespace/name → UID of the last apply
}

func newAPIFloor(cfg *rest.Config, parallelism int) (*apiFloor, error) {
	c := rest.CopyConfig(cfg)
	c.UserAgent = apiFloorUserAgent
	c.QPS, c.Burst = providerDefaultQPS, providerDefaultBurst
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		return nil, err
	}
	return &apiFloor{dyn: dyn, parallelism: parallelism}, nil
}

// run performs the floor's phase (apply or destroy) on apps and returns its
// wall time.
func (f *apiFloor) run(ctx context.Context, phase string, apps []app) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, apiFloorTimeout)
	defer cancel()
	start := time.Now()
	trackers := map[string]*nsTracker{}
	defer func() {
		for _, t := range trackers {
			t.stop()
		}
	}()
	for _, a := range apps {
		if trackers[a.Namespace] != nil {
			continue
		}
		t, err := f.track(ctx, a.Namespace)
		if err != nil {
			return time.Since(start), err
		}
		trackers[a.Namespace] = t
	}
	one := f.applyOne
	if phase == phaseDestroy {
		one = f.deleteOne
	}
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan app)
	for range f.parallelism {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range next {
				if err := one(ctx, trackers[a.Namespace], a); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s %s/%s: %w", phase, a.Namespace, apiFloorName(a.Name), err))
					mu.Unlock()
				}
			}
		}()
	}
	for _, a := range apps {
		next <- a
	}
	close(next)
	wg.Wait()
	wall := time.Since(start)
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Errorf("and %d more", len(errs)-3))
	}
	return wall, errors.Join(errs...)
}

func (f *apiFloor) applyOne(ctx context.Context, t *nsTracker, a app) error {
	body, err := json.Marshal(apiFloorObject(a))
	if err != nil {
		return err
	}
	force := false
	name := apiFloorName(a.Name)
	obj, err := f.dyn.Resource(localdp.ApplicationGVR).Namespace(a.Namespace).Patch(ctx, name, k8stypes.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: apiFloorFieldManager, Force: &force})
	if err != nil {
		return err
	}
	f.uids.Store(a.Namespace+"/"+name, obj.GetUID())
	gen := obj.GetGeneration()
	return t.wait(ctx, name, func(o *unstructured.Unstructured, deleted bool) (bool, error) {
		if deleted {
			return false, errors.New("deleted while waiting for ConfigurationApplied")
		}
		if o == nil || o.GetGeneration() != gen {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] != localdp.CondConfigurationApplied {
				continue
			}
			og, _, _ := unstructured.NestedInt64(m, "observedGeneration")
			return og == gen && m["status"] == string(metav1.ConditionTrue), nil
		}
		return false, nil
	})
}

func (f *apiFloor) deleteOne(ctx context.Context, t *nsTracker, a app) error {
	name := apiFloorName(a.Name)
	opts := metav1.DeleteOptions{}
	if uid, ok := f.uids.Load(a.Namespace + "/" + name); ok {
		opts.Preconditions = metav1.NewUIDPreconditions(fmt.Sprint(uid))
	}
	err := f.dyn.Resource(localdp.ApplicationGVR).Namespace(a.Namespace).Delete(ctx, name, opts)
	if apierrors.IsNotFound(err) {
		return nil // an apply that failed left nothing to delete
	}
	if err != nil {
		return err
	}
	return t.wait(ctx, name, func(_ *unstructured.Unstructured, deleted bool) (bool, error) { return deleted, nil })
}

// nsTracker follows the Applications of one namespace on one watch: the
// last version of each name and whether it was deleted.
type nsTracker struct {
	w      *watchtools.RetryWatcher
	mu     sync.Mutex
	change chan struct{} // closed on every event
	latest map[string]*unstructured.Unstructured
	gone   map[string]bool
	err    error
	done   chan struct{}
}

// track starts the watch of ns from now (the resourceVersion of a LIST of
// at most one Application), re-established by client-go's RetryWatcher.
func (f *apiFloor) track(ctx context.Context, ns string) (*nsTracker, error) {
	client := f.dyn.Resource(localdp.ApplicationGVR).Namespace(ns)
	l, err := client.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("list applications in %s: %w", ns, err)
	}
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, l.GetResourceVersion(), &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.Watch(ctx, o)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watch applications in %s: %w", ns, err)
	}
	t := &nsTracker{w: rw, change: make(chan struct{}), latest: map[string]*unstructured.Unstructured{},
		gone: map[string]bool{}, done: make(chan struct{})}
	go t.consume(ns)
	return t, nil
}

func (t *nsTracker) consume(ns string) {
	defer close(t.done)
	for ev := range t.w.ResultChan() {
		t.mu.Lock()
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			if o, ok := ev.Object.(*unstructured.Unstructured); ok {
				t.latest[o.GetName()] = o
				t.gone[o.GetName()] = ev.Type == watch.Deleted
			}
		case watch.Error:
			t.err = fmt.Errorf("watch of %s: %v", ns, ev.Object)
		}
		close(t.change)
		t.change = make(chan struct{})
		t.mu.Unlock()
	}
}

func (t *nsTracker) stop() {
	t.w.Stop()
	<-t.done
}

// wait returns when done says the last event of name ends the wait.
func (t *nsTracker) wait(ctx context.Context, name string, done func(o *unstructured.Unstructured, deleted bool) (bool, error)) error {
	for {
		t.mu.Lock()
		ok, err := done(t.latest[name], t.gone[name])
		ch, werr := t.change, t.err
		t.mu.Unlock()
		switch {
		case err != nil:
			return err
		case ok:
			return nil
		}
		select {
		case <-ch:
		case <-t.w.Done():
			if werr == nil {
				werr = errors.New("watch ended")
			}
			return werr
		case <-ctx.Done():
			return fmt.Errorf("waiting: %w", ctx.Err())
		}
	}
}
