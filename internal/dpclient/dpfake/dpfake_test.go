package dpfake

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const apps = "/apis/deckhouse.io/v1alpha1/namespaces/ns/applications"

func do(t *testing.T, s *Server, method, path, contentType, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

func apply(t *testing.T, s *Server, manager, body string) map[string]any {
	t.Helper()
	code, out := do(t, s, http.MethodPatch, apps+"/a?fieldManager="+manager, "application/apply-patch+yaml", body)
	if code != http.StatusOK {
		t.Fatalf("apply: %d %v", code, out)
	}
	return out
}

// A server-side apply records its manager's fields, grows the generation
// only when the spec changes, and gives no new resourceVersion when
// nothing changes; a manager's labels it leaves out go, others' stay.
func TestApply_RecordsManagedFieldsAndGenerations(t *testing.T) {
	s := New(t)
	first := apply(t, s, "tf", `{"metadata":{"labels":{"team":"a"}},"spec":{"packageName":"p","settings":{"replicas":2}}}`)
	md := first["metadata"].(map[string]any)
	if md["generation"] != float64(1) || md["resourceVersion"] != "1" {
		t.Fatalf("created: %v", md)
	}
	mf := md["managedFields"].([]any)[0].(map[string]any)
	if mf["manager"] != "tf" || mf["operation"] != "Apply" {
		t.Fatalf("managedFields: %v", mf)
	}
	if _, ok := mf["fieldsV1"].(map[string]any)["f:spec"].(map[string]any)["f:settings"].(map[string]any)["f:replicas"]; !ok {
		t.Fatalf("fieldsV1 lacks spec.settings.replicas: %v", mf["fieldsV1"])
	}
	same := apply(t, s, "tf", `{"metadata":{"labels":{"team":"a"}},"spec":{"packageName":"p","settings":{"replicas":2}}}`)
	if rv := same["metadata"].(map[string]any)["resourceVersion"]; rv != "1" {
		t.Fatalf("an apply that changes nothing gave resourceVersion %v", rv)
	}
	apply(t, s, "other", `{"metadata":{"labels":{"owner":"x"}}}`)
	next := apply(t, s, "tf", `{"spec":{"packageName":"p","settings":{"replicas":3}}}`)
	md = next["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	if md["generation"] != float64(2) || labels["team"] != nil || labels["owner"] != "x" {
		t.Fatalf("after the second apply: generation %v, labels %v", md["generation"], labels)
	}
}

// A DELETE checks its UID precondition; finalizers hold the object, marked
// deleted, until Finalize; a watch from a resourceVersion sees the changes
// after it.
func TestDelete_PreconditionsFinalizersAndWatch(t *testing.T) {
	s := New(t)
	s.Put("ns", "a", map[string]any{"finalizers": []any{Finalizer}})
	if code, _ := do(t, s, http.MethodDelete, apps+"/a", "application/json", `{"preconditions":{"uid":"uid-other"}}`); code != http.StatusConflict {
		t.Fatalf("a DELETE of another UID: %d, want 409", code)
	}
	code, out := do(t, s, http.MethodDelete, apps+"/a", "application/json", `{"preconditions":{"uid":"uid-a"}}`)
	if code != http.StatusOK || out["metadata"].(map[string]any)["deletionTimestamp"] == nil {
		t.Fatalf("a DELETE held by finalizers: %d %v", code, out)
	}
	resp, err := http.Get(s.URL + apps + "?watch=true&resourceVersion=1&timeoutSeconds=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	s.Finalize("ns", "a")
	var types []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && len(types) < 2 {
		var ev struct{ Type string }
		_ = json.Unmarshal(sc.Bytes(), &ev)
		types = append(types, ev.Type)
	}
	if strings.Join(types, ",") != "MODIFIED,DELETED" {
		t.Fatalf("watch events %v, want MODIFIED,DELETED", types)
	}
	if s.Object("ns", "a") != nil || s.Count("DELETE "+apps+"/a") != 2 || s.Count("WATCH "+apps) != 1 {
		t.Fatalf("object %v, requests %v", s.Object("ns", "a"), s.Requests())
	}
}
