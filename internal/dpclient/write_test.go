package dpclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
)

// Two creates of one namespace/name in one process: the second is refused
// by the claim, although the namespace snapshot still says "not found".
func TestWrite_ClaimRefusesTheSecondCreateOfOneName(t *testing.T) {
	f := newFakeAPI(t)
	f.Put("ns", "other", nil)
	c := newClient(t, f, time.Second)
	ctx := context.Background()
	// Two reads of the namespace: the next existence checks answer from a LIST.
	for _, name := range []string{"other", "x"} {
		if _, err := c.existing(ctx, "ns", name); err != nil && !strings.Contains(err.Error(), "not found") {
			t.Fatal(err)
		}
	}
	create := WriteRequest{Object: appObject("ns", "app"), ApplyOptions: ApplyOptions{FieldManager: "tf", Create: true}}
	if res := c.Write(ctx, create); res.Outcome != Applied {
		t.Fatalf("first create: %v %v", res.Outcome, res.Err)
	}
	res := c.Write(ctx, create)
	var ce *ClaimError
	if res.Outcome != Rejected || !errors.As(res.Err, &ce) {
		t.Fatalf("second create of one name: %v %v, want the claim's refusal", res.Outcome, res.Err)
	}
	// A replacement: the delete gives the name up, and the create after it
	// does not trust the snapshot that held the deleted object.
	if err := c.Delete(ctx, "ns", "app", "", false); err != nil {
		t.Fatal(err)
	}
	gets := f.Count("GET /apis/deckhouse.io/v1alpha1/namespaces/ns/applications/app")
	if res := c.Write(ctx, create); res.Outcome != Applied {
		t.Fatalf("create after the delete: %v %v", res.Outcome, res.Err)
	}
	if n := f.Count("GET /apis/deckhouse.io/v1alpha1/namespaces/ns/applications/app"); n != gets+1 {
		t.Fatalf("the create after the delete sent %d GETs, want one (the snapshot is stale for the name)", n-gets)
	}
}

// A create after a snapshot that holds an object this provider deleted in
// the same run is not refused as "already exists".
func TestWrite_DeleteInvalidatesTheExistenceSnapshot(t *testing.T) {
	f := newFakeAPI(t)
	f.Put("ns", "a", nil)
	f.Put("ns", "b", nil)
	c := newClient(t, f, time.Second)
	ctx := context.Background()
	for _, name := range []string{"a", "b"} { // the second read LISTs
		if _, err := c.existing(ctx, "ns", name); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, "ns", "b", "", false); err != nil {
		t.Fatal(err)
	}
	res := c.Write(ctx, WriteRequest{Object: appObject("ns", "b"), ApplyOptions: ApplyOptions{FieldManager: "tf", Create: true}})
	if res.Outcome != Applied {
		t.Fatalf("create after own delete: %v %v, want applied", res.Outcome, res.Err)
	}
}

// Writes after the verdict are not sent, leave no mark, and say so; the
// write that was held says it may have landed.
func TestWrite_NotSentAfterTheVerdict(t *testing.T) {
	f := newFakeAPI(t)
	f.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPatch {
			return dpfake.Hold(w, r)
		}
		return false
	})
	c := newClient(t, f, 300*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first := c.Write(ctx, WriteRequest{Object: appObject("ns", "a"), ApplyOptions: ApplyOptions{FieldManager: "tf", Create: true}})
	if first.Outcome != MayHaveLanded || !strings.Contains(first.Err.Error(), "may have reached the API server") {
		t.Fatalf("held write: %v %v, want may have landed", first.Outcome, first.Err)
	}
	if first.Marked || first.MarkErr == nil {
		t.Fatalf("held write marked %v (%v): the mark must not be sent after the verdict", first.Marked, first.MarkErr)
	}
	patches := f.Count("PATCH")
	started := time.Now()
	second := c.Write(ctx, WriteRequest{Object: appObject("ns", "b"), ApplyOptions: ApplyOptions{FieldManager: "tf", Create: true}})
	if second.Outcome != NotSent || !strings.Contains(second.Err.Error(), "not sent: the API server") || time.Since(started) > 100*time.Millisecond {
		t.Fatalf("write after the verdict: %v %v after %s, want not sent at once", second.Outcome, second.Err, time.Since(started))
	}
	if second.Marked || f.Count("PATCH") != patches {
		t.Fatal("a write after the verdict sent a request")
	}
	if err := c.Delete(ctx, "ns", "a", "", true); err == nil || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("delete after the verdict: %v, want not sent", err)
	}
}

// A write answered 504 with a status body on every attempt may have landed
// (kube-apiserver's 504 says the request may still complete); a refused
// connection never sent it.
func TestWrite_ServerErrorsMayHaveLandedRefusalsWereNeverSent(t *testing.T) {
	f := newFakeAPI(t)
	f.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPatch {
			dpfake.Status(w, http.StatusGatewayTimeout, "Timeout", "the request may still complete")
			return true
		}
		return false
	})
	c := newClient(t, f, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
	defer cancel()
	res := c.Write(ctx, WriteRequest{Object: appObject("ns", "a"), ApplyOptions: ApplyOptions{FieldManager: "tf"}})
	if res.Outcome != MayHaveLanded {
		t.Fatalf("504 on every attempt: %v %v, want may have landed", res.Outcome, res.Err)
	}
	if f.Count("PATCH") < 2 {
		t.Fatal("504 was not retried")
	}
}

// The pending mark is a merge patch of the annotation alone (with the UID
// as a precondition), naming the field manager and the create.
func TestWrite_PendingMarkIsAMergePatchOfTheAnnotationOnly(t *testing.T) {
	f := newFakeAPI(t)
	c := newClient(t, f, time.Second)
	ctx := context.Background()
	res := c.Write(ctx, WriteRequest{Object: appObject("ns", "a"), ApplyOptions: ApplyOptions{FieldManager: "tf", Create: true}})
	if res.Outcome != Applied {
		t.Fatal(res.Err)
	}
	res.WaitErr = &WaitError{Timeout: true}
	c.markPending(ctx, &unstructured.Unstructured{Object: appObject("ns", "a")}, "tf", markValue("tf", "tok"), &res)
	if !res.Marked {
		t.Fatalf("not marked: %v", res.MarkErr)
	}
	reqs := f.Requests()
	lastPatch := reqs[len(reqs)-1]
	for _, r := range reqs {
		if r.Method == http.MethodPatch {
			lastPatch = r
		}
	}
	last := lastPatch.ContentType + " " + lastPatch.Body
	want := `application/merge-patch+json {"metadata":{"annotations":{"terraform.deckhouse.io/pending-create":"manager=tf; create=tok"},"uid":"uid-a"}}`
	if last != want {
		t.Fatalf("mark sent %s\nwant %s", last, want)
	}

	// Never after the Application was deleted during the wait, nor after
	// the operation was cancelled.
	patches := f.Count("PATCH")
	deleted := WriteResult{Outcome: Applied, WaitErr: &WaitError{Deleted: true}}
	c.markPending(ctx, &unstructured.Unstructured{Object: appObject("ns", "a")}, "tf", "m", &deleted)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	cancelled := WriteResult{Outcome: MayHaveLanded}
	c.markPending(cctx, &unstructured.Unstructured{Object: appObject("ns", "a")}, "tf", "m", &cancelled)
	if f.Count("PATCH") != patches || deleted.Marked || cancelled.Marked {
		t.Fatal("a mark was sent after a deletion or a cancellation")
	}
}

// Only a mark this field manager set (managedFields) is adoptable.
func TestAdoptable_OnlyTheFieldManagersOwnMark(t *testing.T) {
	owned := func(manager string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate,
			FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:annotations":{"f:` + AnnotationPendingCreate + `":{}}}}`)}
	}
	tests := []struct {
		name    string
		value   string
		entries []metav1.ManagedFieldsEntry
		want    bool
	}{
		{"own mark", markValue("tf", "t1"), []metav1.ManagedFieldsEntry{owned("tf")}, true},
		{"set by hand", markValue("tf", "t1"), []metav1.ManagedFieldsEntry{owned("kubectl-annotate")}, false},
		{"another manager's mark", markValue("other", "t1"), []metav1.ManagedFieldsEntry{owned("other")}, false},
		{"value names us, another manager set it", markValue("tf", "t1"), []metav1.ManagedFieldsEntry{owned("other")}, false},
		{"no managedFields", markValue("tf", "t1"), nil, false},
		{"older mark of the manager", "tf", []metav1.ManagedFieldsEntry{owned("tf")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{}}
			u.SetAnnotations(map[string]string{AnnotationPendingCreate: tt.value})
			u.SetManagedFields(tt.entries)
			if got := adoptable(u, "tf") != nil; got != tt.want {
				t.Fatalf("adoptable = %v, want %v", got, tt.want)
			}
		})
	}
}

// A server that answers every watch with 410 is re-watched with backoff,
// not at once, and the wait ends with a timeout.
func TestWait_GoneIsRewatchedWithBackoffAndEndsInATimeout(t *testing.T) {
	f := newFakeAPI(t)
	f.Put("ns", "a", map[string]any{"generation": 1})
	f.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("watch") != "true" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old resource version"}}` + "\n"))
		return true
	})
	c := newClient(t, f, time.Second)
	const window = 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "a", "namespace": "ns", "resourceVersion": "1", "generation": int64(1)}}}
	_, err := c.Wait(ctx, obj, WaitOptions{})
	var we *WaitError
	if !errors.As(err, &we) || !we.Timeout {
		t.Fatalf("wait against 410s: %v, want a timeout", err)
	}
	if n := f.Count("WATCH"); n > 10 {
		t.Fatalf("%d watches in %s against a server answering 410, want backoff (at most 10)", n, window)
	}
}
