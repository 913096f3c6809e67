package dpclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// ClaimError is a create of an Application another create of this provider
// process claimed: two resources of one configuration with the same
// namespace and name.
type ClaimError struct{ Namespace, Name string }

func (e *ClaimError) Error() string {
	return fmt.Sprintf("another resource of this configuration creates Application %s/%s in the same run: two resources cannot manage "+
		"one Application. Give one of them another name or namespace", e.Namespace, e.Name)
}

// claims are the namespace/names the creates of one provider process write:
// the existence check reads a snapshot, which cannot tell two creates of one
// name in the same run apart.
type claims struct {
	mu sync.Mutex
	m  map[string]string // namespace/name → token of the create
}

func newClaims() *claims { return &claims{m: map[string]string{}} }

func (c *claims) take(namespace, name, token string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := namespace + "/" + name
	if _, taken := c.m[key]; taken {
		return &ClaimError{Namespace: namespace, Name: name}
	}
	c.m[key] = token
	return nil
}

// release gives a claim up after a create that changed nothing.
func (c *claims) release(namespace, name, token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if key := namespace + "/" + name; c.m[key] == token {
		delete(c.m, key)
	}
}

// drop gives the claim on a deleted Application up.
func (c *claims) drop(namespace, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, namespace+"/"+name)
}

// newToken names one create.
func newToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// markValue is the value of AnnotationPendingCreate.
func markValue(manager, token string) string {
	return "manager=" + manager + "; create=" + token
}

// markManager is the field manager a mark names (an older mark's whole value).
func markManager(v string) string {
	if rest, ok := strings.CutPrefix(v, "manager="); ok {
		if i := strings.LastIndex(rest, "; create="); i >= 0 {
			return rest[:i]
		}
		return rest
	}
	return v
}

// pendingMark is a mark a create adopts.
type pendingMark struct{ value string }

// adoptable returns the mark of u when it is manager's: the value names it
// and metadata.managedFields shows that manager set the annotation.
func adoptable(u *unstructured.Unstructured, manager string) *pendingMark {
	v, ok := u.GetAnnotations()[AnnotationPendingCreate]
	if !ok || markManager(v) != manager {
		return nil
	}
	for _, mf := range u.GetManagedFields() {
		if mf.Manager == manager && mf.FieldsV1 != nil && ownsAnnotation(mf.FieldsV1.GetRawBytes(), AnnotationPendingCreate) {
			return &pendingMark{value: v}
		}
	}
	return nil
}

// ownsAnnotation reports whether a managedFields entry owns annotation key.
func ownsAnnotation(raw []byte, key string) bool {
	var f struct {
		Metadata struct {
			Annotations map[string]any `json:"f:annotations"`
		} `json:"f:metadata"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return false
	}
	_, ok := f.Metadata.Annotations["f:"+key]
	return ok
}

// errNotCreated is a mark that found no Application: the create did not land.
var errNotCreated = errors.New("the Application does not exist: the write did not land")

// markPending adds AnnotationPendingCreate to an Application whose create
// cannot be recorded, as a merge patch of that annotation only (with the
// Application's UID when known): it never re-creates an Application that
// was deleted meanwhile, and it is not sent after the Application was
// deleted during the wait, after the operation was cancelled, or once the
// client's verdict says the API server does not answer.
func (c *Client) markPending(ctx context.Context, u *unstructured.Unstructured, manager, mark string, res *WriteResult) {
	var we *WaitError
	switch {
	case errors.As(res.WaitErr, &we) && we.Deleted:
		return
	case errors.Is(ctx.Err(), context.Canceled):
		res.MarkErr = errors.New("the operation was cancelled")
		return
	case c.outage.Get() != nil:
		res.MarkErr = fmt.Errorf("not sent: the API server %s did not answer", c.outage.Get().Server)
		return
	}
	// The create's context may have run out its deadline: the mark gets a
	// request timeout of its own.
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.ReadTimeout)
	defer cancel()
	meta := map[string]any{"annotations": map[string]any{AnnotationPendingCreate: mark}}
	if res.Object != nil && res.Object.GetUID() != "" {
		meta["uid"] = string(res.Object.GetUID())
	}
	body, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		res.MarkErr = err
		return
	}
	ns, name := u.GetNamespace(), u.GetName()
	client := c.dyn.Resource(dpapi.ApplicationGVR).Namespace(ns)
	defer c.wrote(ns, name)
	_, err = c.retryWrite(mctx, func(ctx context.Context) (*unstructured.Unstructured, error) {
		return client.Patch(ctx, name, k8stypes.MergePatchType, body, metav1.PatchOptions{FieldManager: manager})
	})
	switch {
	case apierrors.IsNotFound(err):
		res.MarkErr = errNotCreated
	case err != nil:
		res.MarkErr = err
	default:
		res.Marked = true
	}
}

// unmark removes an adopted mark (only that mark: a JSON patch that tests
// its value first).
func (c *Client) unmark(ctx context.Context, ns, name, manager, value string) {
	mark := RemovedField{Path: []string{"metadata", "annotations", AnnotationPendingCreate}, Value: value}
	if err := c.RemoveFields(ctx, ns, name, manager, []RemovedField{mark}); err != nil {
		c.log(ctx, "could not remove the pending-create mark of an adopted Application", map[string]any{"namespace": ns, "name": name, "error": err.Error()})
	}
}
