package dpfake

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// Finalizer is the finalizer DP's controller puts on Applications.
const Finalizer = "packages.deckhouse.io/application"

// Request is one request the server received.
type Request struct {
	Method      string
	Path        string
	URI         string // path and query
	Watch       bool
	ContentType string
	Body        string
}

// Line is "METHOD path", with WATCH for the method of a watch.
func (r Request) Line() string {
	if r.Watch {
		return "WATCH " + r.Path
	}
	return r.Method + " " + r.Path
}

// Server is the fake API server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's base URL.
	URL string
	srv *httptest.Server
	t   testing.TB

	mu sync.Mutex
	// objects: Applications by namespace/name, as the server answers them.
	objects map[string]map[string]any
	rv      int     // the last resourceVersion given
	events  []event // every change, in order
	// compacted: a watch from before it is answered 410.
	compacted int
	changed   chan struct{} // closed on each change
	cut       chan struct{} // closed to cut every open watch
	hook      func(w http.ResponseWriter, r *http.Request) bool
	requests  []Request

	tls           bool
	appliesAtOnce bool   // DP's controller applies every write at once
	message       string // status message of applied Applications
	keepOnDelete  bool   // a DELETE leaves the Application to a finalizer that never ends
	dropReply     bool   // a PATCH lands, then the connection is cut before the reply
	packages      map[string][]string
	versions      map[string]map[string]any // ApplicationPackageVersion name -> settings schema
	grants        map[string]map[string]any // namespace/name -> AvailableClusterResource status
}

// Option configures a Server.
type Option func(*Server)

// TLS serves over TLS; Config trusts the server's certificate.
func TLS() Option { return func(s *Server) { s.tls = true } }

// AppliesAtOnce makes DP apply every write at once: a server-side apply
// leaves ConfigurationApplied=True for the new generation, the summary
// Ready, and status.lastAppliedConfiguration = spec.settings.
func AppliesAtOnce() Option { return func(s *Server) { s.appliesAtOnce = true } }

// New starts a server that closes when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t, objects: map[string]map[string]any{}, changed: make(chan struct{}), cut: make(chan struct{}),
		packages: map[string][]string{}, versions: map[string]map[string]any{}, grants: map[string]map[string]any{}}
	for _, o := range opts {
		o(s)
	}
	if s.tls {
		s.srv = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	} else {
		s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	}
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Config is a REST configuration for the server that trusts it.
func (s *Server) Config() *rest.Config {
	c := &rest.Config{Host: s.URL, QPS: 1000, Burst: 1000}
	if s.tls {
		c.TLSClientConfig = rest.TLSClientConfig{CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})}
	}
	return c
}

// CloseClientConnections cuts every open connection, open watches included.
func (s *Server) CloseClientConnections() { s.srv.CloseClientConnections() }

// SetHook sets a function that sees every request after it is recorded and
// may answer it itself (it returns true); nil removes it.
func (s *Server) SetHook(h func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = h
}

// Hold is a hook that keeps a request until the client gives up.
func Hold(_ http.ResponseWriter, r *http.Request) bool {
	<-r.Context().Done()
	return true
}

// SetMessage sets the message of the ConfigurationApplied condition and of
// status.summary of Applications DP applies from now on.
func (s *Server) SetMessage(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.message = msg
}

// KeepOnDelete makes a DELETE leave the Application in place, held by a
// finalizer that never ends.
func (s *Server) KeepOnDelete(keep bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepOnDelete = keep
}

// DropReplies makes a PATCH land and then cuts the connection before the
// reply.
func (s *Server) DropReplies(drop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropReply = drop
}

// AddPackageVersion serves package pkg of repository repo at version, with
// a settings schema (an openAPIV3Schema), loaded; the ApplicationPackage
// pkg lists repo.
func (s *Server) AddPackageVersion(repo, pkg, version string, schema map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.packages[pkg], repo) {
		s.packages[pkg] = append(s.packages[pkg], repo)
	}
	s.versions[dpapi.PackageVersionName(repo, pkg, version)] = schema
}

// SetGrant serves the AvailableClusterResource name of namespace ns with a
// default and the available names; an empty def removes it.
func (s *Server) SetGrant(ns, name, def string, available ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if def == "" {
		delete(s.grants, ns+"/"+name)
		return
	}
	var items []any
	for _, a := range available {
		items = append(items, map[string]any{"name": a})
	}
	s.grants[ns+"/"+name] = map[string]any{"default": def, "available": items}
}

// Put stores an Application with the given metadata (name, namespace and
// uid added) and an empty spec, and returns it as the server does.
func (s *Server) Put(ns, name string, meta map[string]any) *unstructured.Unstructured {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name}
	for k, v := range meta {
		m[k] = v
	}
	typ := "MODIFIED"
	if s.objects[ns+"/"+name] == nil {
		typ = "ADDED"
	}
	s.objects[ns+"/"+name] = map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application", "metadata": m, "spec": map[string]any{}}
	return &unstructured.Unstructured{Object: s.changeLocked(typ, ns, name)}
}

// Apply stores an apply configuration of field manager manager ("" records
// none) as Application ns/name, as a server-side apply does, and returns
// the object.
func (s *Server) Apply(ns, name, manager string, cfg map[string]any) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyOf(s.applyLocked(ns, name, manager, cfg))
}

// SetStatus sets the status of ns/name, as DP's controller does.
func (s *Server) SetStatus(ns, name string, st map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[ns+"/"+name]["status"] = st
	s.changeLocked("MODIFIED", ns, name)
}

// Edit changes the stored Application ns/name in place, with no new
// resourceVersion and no event (as if the change happened unseen).
func (s *Server) Edit(ns, name string, edit func(obj map[string]any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	edit(s.objects[ns+"/"+name])
}

// Object returns a copy of Application ns/name (nil when missing).
func (s *Server) Object(ns, name string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.objects[ns+"/"+name]; o != nil {
		return copyOf(o)
	}
	return nil
}

// Reset forgets every Application, change and request: the next
// resourceVersion given is 1 again.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects = map[string]map[string]any{}
	s.rv, s.events, s.requests = 0, nil, nil
}

// Finalize removes the finalizers of a deleted ns/name: it goes.
func (s *Server) Finalize(ns, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(meta(s.objects[ns+"/"+name]), "finalizers")
	s.deleteLocked(ns, name)
}

// CutWatches ends every open watch; with compact, watches from before now
// are answered 410 (the resourceVersion expired).
func (s *Server) CutWatches(compact bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.cut)
	s.cut = make(chan struct{})
	if compact {
		s.compacted = s.rv + 1
	}
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is the number of requests whose Line starts with prefix.
func (s *Server) Count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if strings.HasPrefix(r.Line(), prefix) {
			n++
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, URI: r.URL.RequestURI(), Watch: r.URL.Query().Get("watch") == "true",
		ContentType: r.Header.Get("Content-Type"), Body: string(body)}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	hook := s.hook
	s.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/api":
		reply(w, http.StatusOK, map[string]any{"kind": "APIVersions", "versions": []any{"v1"}, "serverAddressByClientCIDRs": []any{}})
	case r.URL.Path == "/apis":
		reply(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{}})
	case r.URL.Path == "/api/v1":
		reply(w, http.StatusOK, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{map[string]any{
			"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret", "verbs": []any{"get", "list"}}}})
	case len(parts) == 5 && parts[0] == "apis" && parts[1] == "deckhouse.io" && r.Method == http.MethodGet:
		s.servePackage(w, parts[3], parts[4])
	case len(parts) == 7 && parts[1] == "multitenancy.deckhouse.io" && parts[5] == "availableclusterresources" && r.Method == http.MethodGet:
		s.serveGrant(w, parts[4], parts[6])
	case len(parts) >= 6 && parts[0] == "apis" && parts[1] == "deckhouse.io" && parts[5] == "applications":
		s.serveApplications(w, r, parts, body)
	default:
		Status(w, http.StatusNotFound, "NotFound", "no such path")
	}
}

func (s *Server) servePackage(w http.ResponseWriter, resource, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch resource {
	case "applicationpackages":
		if repos, ok := s.packages[name]; ok {
			var avail []any
			for _, r := range repos {
				avail = append(avail, r)
			}
			reply(w, http.StatusOK, map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "ApplicationPackage",
				"metadata": map[string]any{"name": name}, "status": map[string]any{"availableRepositories": avail}})
			return
		}
	case "applicationpackageversions":
		if schema, ok := s.versions[name]; ok {
			for pkg, repos := range s.packages {
				for _, repo := range repos {
					if !strings.HasPrefix(name, repo+"-"+pkg+"-") {
						continue
					}
					version := strings.TrimPrefix(name, repo+"-"+pkg+"-")
					if dpapi.PackageVersionName(repo, pkg, version) != name {
						continue
					}
					reply(w, http.StatusOK, map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "ApplicationPackageVersion",
						"metadata": map[string]any{"name": name, "resourceVersion": "1"},
						"spec":     map[string]any{"packageName": pkg, "packageRepositoryName": repo, "packageVersion": version},
						"status": map[string]any{
							"conditions":     []any{map[string]any{"type": "MetadataLoaded", "status": "True", "reason": "Loaded", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
							"packageSchemas": map[string]any{"settingsSchema": map[string]any{"openAPIV3Schema": schema}},
						}})
					return
				}
			}
		}
	}
	Status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", resource, name))
}

func (s *Server) serveGrant(w http.ResponseWriter, ns, name string) {
	s.mu.Lock()
	st, ok := s.grants[ns+"/"+name]
	s.mu.Unlock()
	if !ok {
		Status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("availableclusterresources %q not found", name))
		return
	}
	reply(w, http.StatusOK, map[string]any{"apiVersion": "multitenancy.deckhouse.io/v1alpha1", "kind": "AvailableClusterResource",
		"metadata": map[string]any{"name": name, "namespace": ns}, "status": st})
}

// serveApplications answers /apis/deckhouse.io/v1alpha1/namespaces/<ns>/applications[/<name>].
func (s *Server) serveApplications(w http.ResponseWriter, r *http.Request, parts []string, body []byte) {
	ns := parts[4]
	partial := strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata")
	if len(parts) == 6 {
		switch {
		case r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true":
			s.watch(w, r, ns)
		case r.Method == http.MethodGet:
			s.list(w, ns, partial)
		default:
			Status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "not allowed")
		}
		return
	}
	s.serveApplication(w, r, ns, parts[6], partial, body)
}

// serveApplication answers .../applications/<name>: GET, PATCH (server-side
// apply or merge patch) and DELETE.
func (s *Server) serveApplication(w http.ResponseWriter, r *http.Request, ns, name string, partial bool, body []byte) {
	s.mu.Lock()
	obj, ok := s.objects[ns+"/"+name]
	answered := false
	switch r.Method {
	case http.MethodGet:
	case http.MethodPatch:
		obj, ok, answered = s.patchLocked(w, r, ns, name, obj, ok, body)
	case http.MethodDelete:
		if ok {
			answered = s.deleteRequestLocked(w, ns, name, obj, body)
		}
	default:
		s.mu.Unlock()
		Status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "not allowed")
		return
	}
	if answered {
		return
	}
	var out map[string]any
	if ok {
		out = view(obj, partial)
	}
	s.mu.Unlock()
	if !ok {
		Status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("applications.deckhouse.io %q not found", name))
		return
	}
	reply(w, http.StatusOK, out)
}

// patchLocked applies a PATCH of the Application ns/name (obj, ok: as it
// is). It returns the object after the patch, or answered = true when it
// has answered the request itself and released s.mu. The caller holds s.mu.
func (s *Server) patchLocked(w http.ResponseWriter, r *http.Request, ns, name string, obj map[string]any, ok bool, body []byte) (map[string]any, bool, bool) {
	if r.Header.Get("Content-Type") == "application/json-patch+json" {
		if !ok {
			return obj, ok, false
		}
		next, err := s.jsonPatchLocked(ns, name, r.URL.Query().Get("fieldManager"), body)
		if err != nil {
			s.mu.Unlock()
			Status(w, http.StatusUnprocessableEntity, "Invalid", err.Error())
			return nil, false, true
		}
		return next, true, false
	}
	var cfg map[string]any
	if err := json.Unmarshal(body, &cfg); err != nil {
		s.mu.Unlock()
		Status(w, http.StatusBadRequest, "BadRequest", "patch body: "+err.Error())
		return nil, false, true
	}
	switch r.Header.Get("Content-Type") {
	case "application/apply-patch+yaml":
		obj, ok = s.applyLocked(ns, name, r.URL.Query().Get("fieldManager"), cfg), true
	case "application/merge-patch+json":
		if !ok {
			break
		}
		if uid, _ := sub(cfg, "metadata", "uid").(string); uid != "" && uid != meta(obj)["uid"] {
			s.mu.Unlock()
			Status(w, http.StatusConflict, "Conflict", fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %v", uid, meta(obj)["uid"]))
			return nil, false, true
		}
		obj = s.mergeLocked(ns, name, r.URL.Query().Get("fieldManager"), cfg)
	default:
		s.mu.Unlock()
		Status(w, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "server-side apply and merge patches are served")
		return nil, false, true
	}
	if s.dropReply {
		s.mu.Unlock()
		if hj, isHJ := w.(http.Hijacker); isHJ {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return nil, false, true
			}
		}
		s.mu.Lock()
	}
	return obj, ok, false
}

// deleteRequestLocked deletes the Application ns/name (obj) as a DELETE with
// body asks, and reports whether it answered the request itself (and
// released s.mu): a failed precondition, or an Application gone at once.
// The caller holds s.mu.
func (s *Server) deleteRequestLocked(w http.ResponseWriter, ns, name string, obj map[string]any, body []byte) bool {
	var opts struct {
		Preconditions struct {
			UID             string `json:"uid"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"preconditions"`
	}
	_ = json.Unmarshal(body, &opts)
	md := meta(obj)
	if p := opts.Preconditions; (p.UID != "" && p.UID != md["uid"]) || (p.ResourceVersion != "" && p.ResourceVersion != md["resourceVersion"]) {
		s.mu.Unlock()
		Status(w, http.StatusConflict, "Conflict", fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %v", p.UID, md["uid"]))
		return true
	}
	if s.keepOnDelete {
		md["finalizers"] = []any{Finalizer}
	}
	if s.deleteLocked(ns, name) {
		s.mu.Unlock()
		reply(w, http.StatusOK, map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Success",
			"details": map[string]any{"name": name, "kind": "applications", "uid": md["uid"]}})
		return true
	}
	return false
}

// applyLocked is a server-side apply of cfg by manager: the spec, when cfg
// gives one, is replaced (one field manager owns it), the labels and annotations of cfg
// are set and those manager set before and left out are removed, and
// manager's managedFields entry owns what cfg names. The generation grows
// when the spec changes; nothing changes, not even the resourceVersion,
// when nothing does. The caller holds s.mu.
func (s *Server) applyLocked(ns, name, manager string, cfg map[string]any) map[string]any {
	key := ns + "/" + name
	old := s.objects[key]
	typ := "MODIFIED"
	if old == nil {
		typ = "ADDED"
		old = map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": name, "namespace": ns, "uid": "uid-" + name}, "spec": map[string]any{}}
	}
	obj := copyOf(old)
	md := meta(obj)
	cmd, _ := cfg["metadata"].(map[string]any)
	var owned map[string]any
	var entries []any
	for _, e := range asSlice(md["managedFields"]) {
		if m, _ := e.(map[string]any); m != nil && m["manager"] == manager && m["operation"] == "Apply" {
			owned, _ = m["fieldsV1"].(map[string]any)
			continue
		}
		entries = append(entries, e)
	}
	for _, k := range []string{"labels", "annotations"} {
		cur, _ := md[k].(map[string]any)
		next := map[string]any{}
		prev, _ := sub(owned, "f:metadata", "f:"+k).(map[string]any)
		for kk, v := range cur {
			if _, mine := prev["f:"+kk]; !mine {
				next[kk] = v
			}
		}
		given, _ := cmd[k].(map[string]any)
		for kk, v := range given {
			next[kk] = v
		}
		if len(next) == 0 {
			delete(md, k)
		} else {
			md[k] = next
		}
	}
	spec, given := cfg["spec"].(map[string]any)
	if given {
		obj["spec"] = spec
	} else {
		spec, _ = obj["spec"].(map[string]any)
	}
	gen := Int64(md["generation"])
	if gen == 0 || !reflect.DeepEqual(old["spec"], spec) {
		gen++
	}
	md["generation"] = gen
	if manager != "" {
		entries = append(entries, map[string]any{"manager": manager, "operation": "Apply", "apiVersion": "deckhouse.io/v1alpha1",
			"time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fieldsOf(map[string]any{"metadata": cmd, "spec": cfg["spec"]})})
	}
	if len(entries) > 0 {
		md["managedFields"] = entries
	} else {
		delete(md, "managedFields")
	}
	if s.appliesAtOnce {
		settings := spec["settings"]
		if settings == nil {
			settings = map[string]any{}
		}
		cond := map[string]any{"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied",
			"observedGeneration": gen, "lastTransitionTime": "2026-01-01T00:00:00Z"}
		summary := map[string]any{"state": "Ready"}
		if s.message != "" {
			cond["message"], summary["message"] = s.message, s.message
		}
		obj["status"] = map[string]any{"summary": summary, "currentVersion": map[string]any{"version": spec["packageVersion"]},
			"lastAppliedConfiguration": settings, "conditions": []any{cond}}
	}
	md["resourceVersion"] = meta(old)["resourceVersion"]
	if typ == "MODIFIED" && reflect.DeepEqual(normalize(obj), normalize(old)) {
		return old
	}
	s.objects[key] = obj
	s.changeLocked(typ, ns, name)
	return obj
}

// mergeLocked applies a JSON merge patch (RFC 7386) to the existing ns/name;
// manager's Update entry in managedFields owns what the patch sets. The
// caller holds s.mu.
func (s *Server) mergeLocked(ns, name, manager string, patch map[string]any) map[string]any {
	key := ns + "/" + name
	old := s.objects[key]
	obj := mergePatch(copyOf(old), patch)
	if !reflect.DeepEqual(normalize(obj["spec"]), normalize(old["spec"])) {
		meta(obj)["generation"] = Int64(meta(old)["generation"]) + 1
	}
	if manager != "" {
		md := meta(obj)
		md["managedFields"] = append(asSlice(md["managedFields"]), map[string]any{"manager": manager, "operation": "Update",
			"apiVersion": "deckhouse.io/v1alpha1", "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fieldsOf(patch)})
	}
	if reflect.DeepEqual(normalize(obj), normalize(old)) {
		return old
	}
	s.objects[key] = obj
	s.changeLocked("MODIFIED", ns, name)
	return obj
}

// jsonPatchLocked applies a JSON patch (RFC 6902) of test and remove
// operations on object members to the existing ns/name, as the API server
// does: a removed field leaves every managedFields entry. The caller holds
// s.mu.
func (s *Server) jsonPatchLocked(ns, name, _ string, body []byte) (map[string]any, error) {
	var ops []struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	if err := json.Unmarshal(body, &ops); err != nil {
		return nil, fmt.Errorf("json patch: %w", err)
	}
	key := ns + "/" + name
	old := s.objects[key]
	obj := copyOf(old)
	for _, op := range ops {
		path := strings.Split(strings.TrimPrefix(op.Path, "/"), "/")
		for i, seg := range path {
			path[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		}
		parent, _ := sub(obj, path[:len(path)-1]...).(map[string]any)
		cur, found := parent[path[len(path)-1]]
		switch {
		case !found:
			return nil, fmt.Errorf("json patch: %s: no such member", op.Path)
		case op.Op == "test" && !reflect.DeepEqual(normalize(cur), normalize(op.Value)):
			return nil, fmt.Errorf("json patch: test of %s failed", op.Path)
		case op.Op == "remove":
			delete(parent, path[len(path)-1])
			for _, e := range asSlice(meta(obj)["managedFields"]) {
				m, _ := e.(map[string]any)
				set, _ := sub(m, append([]string{"fieldsV1"}, fieldPath(path[:len(path)-1])...)...).(map[string]any)
				delete(set, "f:"+path[len(path)-1])
			}
		case op.Op != "test":
			return nil, fmt.Errorf("json patch: op %q is not served", op.Op)
		}
	}
	if !reflect.DeepEqual(normalize(obj["spec"]), normalize(old["spec"])) {
		meta(obj)["generation"] = Int64(meta(old)["generation"]) + 1
	}
	s.objects[key] = obj
	s.changeLocked("MODIFIED", ns, name)
	return obj, nil
}

// fieldPath is path as the members of a fieldsV1 set ("f:<name>").
func fieldPath(path []string) []string {
	out := make([]string, len(path))
	for i, p := range path {
		out[i] = "f:" + p
	}
	return out
}

func mergePatch(target, patch map[string]any) map[string]any {
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(target, k)
		case map[string]any:
			t, _ := target[k].(map[string]any)
			if t == nil {
				t = map[string]any{}
			}
			target[k] = mergePatch(t, pv)
		default:
			target[k] = copyValue(v)
		}
	}
	return target
}

// fieldsOf is the fieldsV1 set of the fields v names.
func fieldsOf(v map[string]any) map[string]any {
	out := map[string]any{}
	for k, x := range v {
		if k == "name" || k == "namespace" {
			continue
		}
		if m, ok := x.(map[string]any); ok {
			out["f:"+k] = fieldsOf(m)
		} else if x != nil {
			out["f:"+k] = map[string]any{}
		}
	}
	return out
}

// event is one change of the server's Applications.
type event struct {
	typ, ns string
	rv      int
	obj     map[string]any
}

// changeLocked gives ns/name a new resourceVersion and records the change;
// the caller holds s.mu.
func (s *Server) changeLocked(typ, ns, name string) map[string]any {
	s.rv++
	obj := s.objects[ns+"/"+name]
	meta(obj)["resourceVersion"] = strconv.Itoa(s.rv)
	out := copyOf(obj)
	s.events = append(s.events, event{typ: typ, ns: ns, rv: s.rv, obj: copyOf(obj)})
	close(s.changed)
	s.changed = make(chan struct{})
	return out
}

// deleteLocked deletes ns/name, or marks it deleted while finalizers hold
// it; it reports whether the object is gone.
func (s *Server) deleteLocked(ns, name string) bool {
	obj := s.objects[ns+"/"+name]
	md := meta(obj)
	if len(asSlice(md["finalizers"])) > 0 {
		if md["deletionTimestamp"] == nil {
			md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
			s.changeLocked("MODIFIED", ns, name)
		}
		return false
	}
	s.rv++
	md["resourceVersion"] = strconv.Itoa(s.rv)
	s.events = append(s.events, event{typ: "DELETED", ns: ns, rv: s.rv, obj: copyOf(obj)})
	delete(s.objects, ns+"/"+name)
	close(s.changed)
	s.changed = make(chan struct{})
	return true
}

// watch streams the changes of namespace ns after the request's
// resourceVersion until the client leaves, timeoutSeconds pass, or
// CutWatches.
func (s *Server) watch(w http.ResponseWriter, r *http.Request, ns string) {
	from, _ := strconv.Atoi(r.URL.Query().Get("resourceVersion"))
	only := strings.TrimPrefix(r.URL.Query().Get("fieldSelector"), "metadata.name=")
	var end <-chan time.Time
	if secs, err := strconv.Atoi(r.URL.Query().Get("timeoutSeconds")); err == nil {
		end = time.After(time.Duration(secs) * time.Second)
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	s.mu.Lock()
	cut := s.cut
	if from < s.compacted {
		s.mu.Unlock()
		_ = enc.Encode(map[string]any{"type": "ERROR", "object": map[string]any{"kind": "Status", "apiVersion": "v1",
			"status": "Failure", "code": 410, "reason": "Expired", "message": "too old resource version"}})
		return
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	flush(w)
	for {
		s.mu.Lock()
		var batch []event
		for _, ev := range s.events {
			if ev.rv > from && ev.ns == ns && (only == "" || meta(ev.obj)["name"] == only) {
				batch = append(batch, ev)
			}
		}
		changed := s.changed
		cutNow := s.cut != cut
		s.mu.Unlock()
		if cutNow {
			return
		}
		for _, ev := range batch {
			_ = enc.Encode(map[string]any{"type": ev.typ, "object": ev.obj})
			from = ev.rv
		}
		flush(w)
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

// list answers the Applications of namespace ns ("" = all), by name.
func (s *Server) list(w http.ResponseWriter, ns string, partial bool) {
	s.mu.Lock()
	keys := slices.DeleteFunc(slices.Sorted(maps.Keys(s.objects)), func(k string) bool { return !strings.HasPrefix(k, ns+"/") })
	items := []any{}
	for _, key := range keys {
		items = append(items, view(s.objects[key], partial))
	}
	rv := strconv.Itoa(s.rv)
	s.mu.Unlock()
	kind, apiVersion := "ApplicationList", "deckhouse.io/v1alpha1"
	if partial {
		kind, apiVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	reply(w, http.StatusOK, map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"resourceVersion": rv}, "items": items})
}

// view is obj as the server answers it: a copy, metadata only when partial.
func view(obj map[string]any, partial bool) map[string]any {
	if partial {
		return map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": copyOf(meta(obj))}
	}
	return copyOf(obj)
}

// Status answers a request with a failed Status of code.
func Status(w http.ResponseWriter, code int, reason, msg string) {
	reply(w, code, map[string]any{"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": code, "reason": reason, "message": msg})
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func meta(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	return m
}

func sub(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, _ := cur.(map[string]any)
		cur = mm[k]
	}
	return cur
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// Int64 is a number of an object the fake holds (int64 as it stores them,
// float64 or int as a test may set them) as an int64; 0 for anything else.
func Int64(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return 0
}

// copyOf is a deep copy of a JSON-shaped map; numbers keep their Go type.
func copyOf(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return copyOf(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}

// normalize is v through JSON, where int64(1) and float64(1) are the same.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// flush sends what w holds so far, when w can.
func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
