package dpclient

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// fakeAPI is an httptest API server of Applications for the tests of the
// verdict and the write protocol: it answers GET, LIST, PATCH and DELETE of
// the objects it holds, and each request can be held or answered otherwise
// by hook.
type fakeAPI struct {
	srv *httptest.Server
	mu  sync.Mutex
	// objects by namespace/name: metadata only (name, namespace, uid,
	// annotations, managedFields).
	objects map[string]map[string]any
	// hook, when set, may answer a request itself (it returns true).
	hook     func(w http.ResponseWriter, r *http.Request) bool
	requests []string // "METHOD path[?watch]" of every request
	bodies   []string // bodies of PATCH requests, "content-type body"
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{objects: map[string]map[string]any{}}
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
	return c
}

func (f *fakeAPI) put(ns, name string, meta map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name, "resourceVersion": "1"}
	for k, v := range meta {
		m[k] = v
	}
	f.objects[ns+"/"+name] = m
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
	if len(parts) == 6 {
		f.list(w, ns, partial)
		return
	}
	name := parts[6]
	f.mu.Lock()
	obj, ok := f.objects[ns+"/"+name]
	switch r.Method {
	case http.MethodPatch:
		if !ok && r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			obj = map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name, "resourceVersion": "1"}
			f.objects[ns+"/"+name] = obj
			ok = true
		}
	case http.MethodDelete:
		delete(f.objects, ns+"/"+name)
	}
	f.mu.Unlock()
	if !ok {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("applications %q not found", name))
		return
	}
	writeObject(w, obj, partial)
}

func (f *fakeAPI) list(w http.ResponseWriter, ns string, partial bool) {
	f.mu.Lock()
	var items []any
	for key, obj := range f.objects {
		if strings.HasPrefix(key, ns+"/") {
			items = append(items, wrap(obj, partial))
		}
	}
	f.mu.Unlock()
	kind, apiVersion := "ApplicationList", "deckhouse.io/v1alpha1"
	if partial {
		kind, apiVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"resourceVersion": "1"}, "items": items})
}

func wrap(meta map[string]any, partial bool) map[string]any {
	if partial {
		return map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": meta}
	}
	return map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application", "metadata": meta, "spec": map[string]any{}}
}

func writeObject(w http.ResponseWriter, meta map[string]any, partial bool) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(wrap(meta, partial))
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
