package dpclient

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

// fakeAPI is an httptest API server of Applications for the tests of the
// verdict, the write protocol and the waits: it answers GET, LIST, PATCH,
// DELETE (finalizers hold an object until finalize) and WATCH (from a
// resourceVersion, 410 before the compacted one) of the objects it holds,
// and each request can be held or answered otherwise by hook.
type fakeAPI struct {
	srv *httptest.Server
	mu  sync.Mutex
	// objects by namespace/name: metadata only (name, namespace, uid,
	// annotations, managedFields, finalizers, generation).
	objects map[string]map[string]any
	status  map[string]map[string]any // status by namespace/name
	rv      int                       // the last resourceVersion given
	events  []fakeEvent               // every change, in order
	// compacted: a watch from before it is answered 410.
	compacted int
	changed   chan struct{} // closed on each change
	cut       chan struct{} // closed to cut every open watch
	// hook, when set, may answer a request itself (it returns true).
	hook     func(w http.ResponseWriter, r *http.Request) bool
	requests []string // "METHOD path[?watch]" of every request
	bodies   []string // bodies of PATCH requests, "content-type body"
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{objects: map[string]map[string]any{}, status: map[string]map[string]any{}, changed: make(chan struct{}), cut: make(chan struct{})}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// config is a REST configuration that trusts the server.
func (f *fakeAPI) config() *rest.Config {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw})
	return &rest.Config{Host: f.srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}, QPS: 1000, Burst: 1000}
}

func (f *fakeAPI) client(t *testing.T, timeout time.Duration) *Client {
	t.Helper()
	c, err := New(f.config(), Options{ReadTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopWatches(c) }) // before the server closes: it waits for open watches
	return c
}

// put stores an Application (metadata) and returns it as the server does.
func (f *fakeAPI) put(ns, name string, meta map[string]any) *unstructured.Unstructured {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name}
	for k, v := range meta {
		m[k] = v
	}
	typ := "MODIFIED"
	if f.objects[ns+"/"+name] == nil {
		typ = "ADDED"
	}
	f.objects[ns+"/"+name] = m
	return f.changeLocked(typ, ns, name)
}

func (f *fakeAPI) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	line := r.Method + " " + r.URL.Path
	if r.URL.Query().Get("watch") == "true" {
		line = "WATCH " + r.URL.Path
	}
	f.requests = append(f.requests, line)
	if r.Method == http.MethodPatch {
		f.bodies = append(f.bodies, r.Header.Get("Content-Type")+" "+string(body))
	}
	hook := f.hook
	f.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	// /apis/deckhouse.io/v1alpha1/namespaces/<ns>/applications[/<name>]
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 6 || parts[5] != "applications" {
		status(w, http.StatusNotFound, "NotFound", "no such path")
		return
	}
	ns := parts[4]
	partial := strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata")
	if len(parts) == 6 && r.URL.Query().Get("watch") == "true" {
		f.watch(w, r, ns)
		return
	}
	if len(parts) == 6 {
		f.list(w, ns, partial)
		return
	}
	name := parts[6]
	f.mu.Lock()
	_, ok := f.objects[ns+"/"+name]
	switch r.Method {
	case http.MethodPatch:
		if !ok && r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			f.objects[ns+"/"+name] = map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name}
			f.changeLocked("ADDED", ns, name)
			ok = true
		}
	case http.MethodDelete:
		if ok && f.deleteLocked(ns, name) {
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Success",
				"details": map[string]any{"name": name, "kind": "applications", "uid": "uid-" + name}})
			return
		}
	}
	var out map[string]any
	if ok {
		out = f.fullLocked(ns, name, partial)
	}
	f.mu.Unlock()
	if !ok {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("applications %q not found", name))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// fakeEvent is one change of the fake's objects.
type fakeEvent struct {
	typ, ns string
	rv      int
	obj     map[string]any
}

// changeLocked gives namespace/name a new resourceVersion and records the
// change; the caller holds f.mu.
func (f *fakeAPI) changeLocked(typ, ns, name string) *unstructured.Unstructured {
	f.rv++
	f.objects[ns+"/"+name]["resourceVersion"] = fmt.Sprint(f.rv)
	obj := f.fullLocked(ns, name, false)
	f.events = append(f.events, fakeEvent{typ: typ, ns: ns, rv: f.rv, obj: obj})
	close(f.changed)
	f.changed = make(chan struct{})
	return &unstructured.Unstructured{Object: obj}
}

// deleteLocked deletes namespace/name, or marks it deleted while finalizers
// hold it; it reports whether the object is gone.
func (f *fakeAPI) deleteLocked(ns, name string) bool {
	m := f.objects[ns+"/"+name]
	if fins, _ := m["finalizers"].([]any); len(fins) > 0 {
		if m["deletionTimestamp"] == nil {
			m["deletionTimestamp"] = "2026-01-01T00:00:00Z"
			f.changeLocked("MODIFIED", ns, name)
		}
		return false
	}
	f.rv++
	m["resourceVersion"] = fmt.Sprint(f.rv)
	f.events = append(f.events, fakeEvent{typ: "DELETED", ns: ns, rv: f.rv, obj: f.fullLocked(ns, name, false)})
	delete(f.objects, ns+"/"+name)
	delete(f.status, ns+"/"+name)
	close(f.changed)
	f.changed = make(chan struct{})
	return true
}

// fullLocked is the object namespace/name as the server answers it.
func (f *fakeAPI) fullLocked(ns, name string, partial bool) map[string]any {
	meta := map[string]any{}
	for k, v := range f.objects[ns+"/"+name] {
		meta[k] = v
	}
	out := wrap(meta, partial)
	if st := f.status[ns+"/"+name]; st != nil && !partial {
		out["status"] = st
	}
	return out
}

// setStatus sets the status of namespace/name, as DP's controller does.
func (f *fakeAPI) setStatus(ns, name string, st map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status[ns+"/"+name] = st
	f.changeLocked("MODIFIED", ns, name)
}

// applied is the status of DP's success on generation gen.
func applied(gen int64) map[string]any {
	return map[string]any{"conditions": []any{map[string]any{"type": ConditionConfigurationApplied, "status": "True",
		"reason": "ConfigurationApplied", "observedGeneration": gen, "lastTransitionTime": "2026-01-01T00:00:00Z"}}}
}

// finalize removes the finalizers of a deleted namespace/name: it goes.
func (f *fakeAPI) finalize(ns, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.objects[ns+"/"+name], "finalizers")
	f.deleteLocked(ns, name)
}

// cutWatches ends every open watch; with compact, watches from before now
// are answered 410 (the resourceVersion expired).
func (f *fakeAPI) cutWatches(compact bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.cut)
	f.cut = make(chan struct{})
	if compact {
		f.compacted = f.rv + 1
	}
}

// watch streams the changes of namespace ns after the request's
// resourceVersion until the client leaves, timeoutSeconds pass, or
// cutWatches.
func (f *fakeAPI) watch(w http.ResponseWriter, r *http.Request, ns string) {
	from, _ := strconv.Atoi(r.URL.Query().Get("resourceVersion"))
	only := strings.TrimPrefix(r.URL.Query().Get("fieldSelector"), "metadata.name=")
	var end <-chan time.Time
	if s, err := strconv.Atoi(r.URL.Query().Get("timeoutSeconds")); err == nil {
		end = time.After(time.Duration(s) * time.Second)
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	f.mu.Lock()
	cut := f.cut
	if from < f.compacted {
		f.mu.Unlock()
		_ = enc.Encode(map[string]any{"type": "ERROR", "object": map[string]any{"kind": "Status", "apiVersion": "v1",
			"status": "Failure", "code": 410, "reason": "Expired", "message": "too old resource version"}})
		return
	}
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		f.mu.Lock()
		var batch []fakeEvent
		for _, ev := range f.events {
			if ev.rv > from && ev.ns == ns && (only == "" || ev.obj["metadata"].(map[string]any)["name"] == only) {
				batch = append(batch, ev)
			}
		}
		changed := f.changed
		cutNow := f.cut != cut
		f.mu.Unlock()
		if cutNow {
			return
		}
		for _, ev := range batch {
			_ = enc.Encode(map[string]any{"type": ev.typ, "object": ev.obj})
			from = ev.rv
		}
		w.(http.Flusher).Flush()
		select {
		case <-changed:
		case <-cut:
			return
		case <-end:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (f *fakeAPI) list(w http.ResponseWriter, ns string, partial bool) {
	f.mu.Lock()
	var items []any
	for key, obj := range f.objects {
		if strings.HasPrefix(key, ns+"/") {
			items = append(items, f.fullLocked(ns, obj["name"].(string), partial))
		}
	}
	rv := fmt.Sprint(f.rv)
	f.mu.Unlock()
	kind, apiVersion := "ApplicationList", "deckhouse.io/v1alpha1"
	if partial {
		kind, apiVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"resourceVersion": rv}, "items": items})
}

func wrap(meta map[string]any, partial bool) map[string]any {
	if partial {
		return map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": meta}
	}
	return map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application", "metadata": meta, "spec": map[string]any{}}
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": code, "reason": reason, "message": msg})
}

// hold keeps a request until the client gives up.
func hold(_ http.ResponseWriter, r *http.Request) bool {
	<-r.Context().Done()
	return true
}

// appObject is an apply configuration of an Application.
func appObject(ns, name string) map[string]any {
	return map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"packageName": "p", "packageVersion": "v1.0.0", "packageRepositoryName": "main"},
	}
}
