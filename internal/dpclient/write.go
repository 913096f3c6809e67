package dpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// AnnotationPendingCreate marks an Application this provider created but
// could not record in a state (the create's wait failed, or the outcome of
// its write is unknown). Its value names the field manager and the create
// that wrote it ("manager=<field manager>; create=<token>"). A later create
// adopts such an Application instead of refusing it only when the mark is
// its field manager's: the value names it and metadata.managedFields shows
// that field manager set the annotation (an annotation set by hand, or by
// another manager, is not adoptable). The adopting create removes the mark.
const AnnotationPendingCreate = "terraform.deckhouse.io/pending-create"

// writeBackoff is the retry schedule of idempotent writes.
var writeBackoff = Backoff{Initial: 250 * time.Millisecond, Max: 10 * time.Second}

// ApplyOptions of one server-side apply of an Application.
type ApplyOptions struct {
	FieldManager string
	Force        bool
	// Create refuses an Application that exists already, unless it carries
	// AnnotationPendingCreate of the same field manager.
	Create bool
}

// Outcome is what a write did to the cluster.
type Outcome int

const (
	// NotSent: the write never reached the API server (the client's verdict
	// held it back, the connection was refused, the TLS handshake failed, the
	// operation ran out of time before sending) or the existence check could
	// not be made. Nothing changed.
	NotSent Outcome = iota
	// Rejected: the API server, the existence check or this process's claim
	// on the name refused the write. Nothing changed.
	Rejected
	// MayHaveLanded: an attempt reached the API server and no answer came, or
	// it answered with a server error: the write may have been processed.
	MayHaveLanded
	// Applied: the API server accepted the write.
	Applied
)

func (o Outcome) String() string {
	return [...]string{"not sent", "rejected", "may have landed", "applied"}[o]
}

// WriteRequest is one write of an Application: a server-side apply of
// Object (an apply configuration: apiVersion, kind, metadata.name/namespace/
// labels/annotations, spec), then, with Wait, the wait for DP's verdict.
type WriteRequest struct {
	Object map[string]any
	ApplyOptions
	// Wait, when set, waits for DP's verdict on the written generation.
	Wait *WaitOptions
	// Applied, when set, is called with the Application the apply returned,
	// before the wait (for a caller whose redaction depends on it).
	Applied func(*unstructured.Unstructured)
}

// WriteResult is what a write did.
type WriteResult struct {
	Outcome Outcome
	// Object is the Application as the write (and the wait) left it, when
	// Applied.
	Object *unstructured.Unstructured
	// Err is why the write did not apply: a *WriteError, *ExistsError,
	// *ClaimError or *ConflictError, or an API error of the refusal. Nil when
	// Applied.
	Err error
	// WaitErr is the failure of the wait after an applied write.
	WaitErr error
	// Adopted is set when a create took over an Application an earlier
	// create of this field manager had marked.
	Adopted bool
	// Marked is set when a create that cannot be recorded (MayHaveLanded, or
	// Applied with a WaitErr) left AnnotationPendingCreate on the
	// Application; MarkErr says why it did not, when it tried.
	Marked  bool
	MarkErr error
}

// Pending reports whether a create left an Application it cannot record:
// the next create adopts it when Marked.
func (r *WriteResult) Pending() bool {
	return r.Outcome == MayHaveLanded || (r.Outcome == Applied && r.WaitErr != nil)
}

// Write is the one write protocol of Applications. For a create: the claim
// of namespace/name in this process (two resources of one run never create
// one object), the existence check (an Application that exists is refused
// unless this field manager's create marked it), the server-side apply with
// retries, the wait, and, when the create cannot be recorded, the pending
// mark. For an update: the apply with retries and the wait. Each step honours
// the client's verdict on the API server: a write after it is NotSent, and
// no mark follows a write that never reached the server.
func (c *Client) Write(ctx context.Context, req WriteRequest) (res WriteResult) {
	u := &unstructured.Unstructured{Object: req.Object}
	ns, name := u.GetNamespace(), u.GetName()
	var (
		adopt *pendingMark
		mark  string
	)
	if req.Create {
		token := newToken()
		if err := c.claims.take(ns, name, token); err != nil {
			return WriteResult{Outcome: Rejected, Err: err}
		}
		defer func() {
			if res.Outcome == NotSent || res.Outcome == Rejected {
				c.claims.release(ns, name, token)
			}
		}()
		var out *WriteResult
		if adopt, out = c.checkCreate(ctx, ns, name, req.FieldManager); out != nil {
			return *out
		}
		mark = markValue(req.FieldManager, token)
	}
	obj, err := c.apply(ctx, u, req.ApplyOptions)
	res = WriteResult{Outcome: writeOutcome(err), Object: obj, Err: err}
	if res.Outcome == Applied && adopt != nil {
		res.Adopted = true
		c.log(ctx, "adopted an Application an earlier create of this provider wrote", map[string]any{"namespace": ns, "name": name, "mark": adopt.value})
		c.unmark(ctx, ns, name, req.FieldManager, adopt.value)
	}
	if res.Outcome == Applied && req.Applied != nil {
		req.Applied(obj)
	}
	if res.Outcome == Applied && req.Wait != nil {
		res.Object, res.WaitErr = c.Wait(ctx, obj, *req.Wait)
	}
	if req.Create && res.Pending() {
		c.markPending(ctx, u, req.FieldManager, mark, &res)
	}
	return res
}

// writeOutcome classifies the error of an apply.
func writeOutcome(err error) Outcome {
	var (
		we *WriteError
		ce *ConflictError
	)
	switch {
	case err == nil:
		return Applied
	case errors.As(err, &ce):
		return Rejected
	case errors.As(err, &we) && we.MayHaveLanded:
		return MayHaveLanded
	case errors.As(err, &we):
		return NotSent
	case apierrors.IsTooManyRequests(err):
		return NotSent
	}
	return Rejected
}

// checkCreate looks the Application up before a create. It returns the mark
// to adopt, or the result that ends the create.
func (c *Client) checkCreate(ctx context.Context, ns, name, manager string) (*pendingMark, *WriteResult) {
	existing, err := c.existing(ctx, ns, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, &WriteResult{Outcome: NotSent, Err: &WriteError{Op: "apply", Namespace: ns, Name: name, NotSent: true,
			Err: fmt.Errorf("checking whether the Application exists: %w", err)}}
	}
	if m := adoptable(existing, manager); m != nil {
		return m, nil
	}
	return nil, &WriteResult{Outcome: Rejected, Err: &ExistsError{Namespace: ns, Name: name, Managers: managers(existing)}}
}

// existing looks an Application up for a create, retrying transient errors.
func (c *Client) existing(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	b := Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second}
	var r retries
	for {
		u, err := c.creates.get(ctx, namespace, name)
		err = c.outage.ShareVerdict(err)
		if err == nil || !r.again(err) || ctx.Err() != nil {
			return u, err
		}
		if sleep(ctx, b.Next()) != nil {
			return nil, err
		}
	}
}

func (c *Client) apply(ctx context.Context, u *unstructured.Unstructured, opts ApplyOptions) (*unstructured.Unstructured, error) {
	client := c.dyn.Resource(dpapi.ApplicationGVR).Namespace(u.GetNamespace())
	body, err := json.Marshal(u.Object)
	if err != nil {
		return nil, fmt.Errorf("encoding the Application: %w", err)
	}
	force := opts.Force
	ns, name := u.GetNamespace(), u.GetName()
	defer c.wrote(ns, name)
	out, err := c.retryWrite(ctx, func(ctx context.Context) (*unstructured.Unstructured, error) {
		return client.Patch(ctx, name, k8stypes.ApplyPatchType, body, metav1.PatchOptions{FieldManager: opts.FieldManager, Force: &force})
	})
	if err != nil {
		if ce := conflictFrom(ns, name, err); ce != nil {
			return nil, ce
		}
		var we *WriteError
		if errors.As(err, &we) {
			we.Op, we.Namespace, we.Name = "apply", ns, name
			return nil, we
		}
		return nil, err
	}
	return out, nil
}

// wrote drops what the read caches know of namespace/name after this
// provider wrote or deleted it.
func (c *Client) wrote(namespace, name string) {
	c.apps.invalidate(namespace, name)
	c.creates.invalidate(namespace, name)
}

// writeCtx bounds one attempt of a write by the request timeout (the
// operation's deadline bounds them all).
func (c *Client) writeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.opts.ReadTimeout)
}

// retryWrite sends an idempotent write until it succeeds, fails for good, or
// ctx ends, each attempt bounded by the request timeout. It fails with a
// *WriteError unless the server refused the write with an answer: with
// MayHaveLanded once an attempt may have been processed (mayHaveLanded),
// with NotSent when no attempt reached the server.
func (c *Client) retryWrite(ctx context.Context, write func(context.Context) (*unstructured.Unstructured, error)) (*unstructured.Unstructured, error) {
	b := writeBackoff
	var r retries
	landed := false
	for {
		actx, cancel := c.writeCtx(ctx)
		out, err := write(actx)
		cancel()
		if err == nil {
			return out, nil
		}
		err = c.outage.ShareVerdict(err)
		landed = landed || Classify(err).MayHaveLanded()
		var status apierrors.APIStatus
		if !r.again(err) || ctx.Err() != nil {
			if !landed && errors.As(err, &status) && !apierrors.IsTooManyRequests(err) {
				return nil, err
			}
			return nil, &WriteError{Err: err, MayHaveLanded: landed, NotSent: !landed}
		}
		delay := b.Next()
		if s, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(s)*time.Second > delay {
			delay = time.Duration(s) * time.Second
		}
		if sleep(ctx, delay) != nil {
			return nil, &WriteError{Err: err, MayHaveLanded: landed, NotSent: !landed}
		}
	}
}

func managers(u *unstructured.Unstructured) []string {
	set := map[string]bool{}
	for _, mf := range u.GetManagedFields() {
		set[mf.Manager] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// Delete deletes the Application with a UID precondition (a newer object of
// the same name is never deleted), retrying transient errors, and, when wait
// is set, waits until it is gone. A missing Application is not an error.
// The DELETE's answer says whether the Application is gone already (no
// finalizers) or which version of it the finalizers hold, where the wait
// starts on the namespace's shared watch: the wait sends no request of its
// own.
func (c *Client) Delete(ctx context.Context, namespace, name, uid string, wait bool) error {
	defer c.wrote(namespace, name)
	c.claims.drop(namespace, name)
	opts := metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}}
	if uid != "" {
		u := k8stypes.UID(uid)
		opts.Preconditions = &metav1.Preconditions{UID: &u}
	}
	body, err := json.Marshal(opts)
	if err != nil {
		return fmt.Errorf("encoding the delete options: %w", err)
	}
	held, err := c.retryWrite(ctx, func(ctx context.Context) (*unstructured.Unstructured, error) {
		u, err := c.deleteOnce(ctx, namespace, name, opts, body)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return u, err
	})
	if apierrors.IsConflict(err) && uid != "" {
		// The UID differs: the Application this state knew is gone and
		// another object of the same name took its place.
		return nil
	}
	if err != nil {
		var we *WriteError
		if errors.As(err, &we) {
			we.Op, we.Namespace, we.Name = "delete", namespace, name
		}
		return err
	}
	if !wait {
		return nil
	}
	if c.raw == nil {
		// A client built from interfaces does not see the DELETE's answer:
		// read the Application.
		if held, err = c.getWithRetry(ctx, c.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace), name); apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("waiting for the Application to disappear: %w", err)
		}
	}
	if held == nil || (uid != "" && string(held.GetUID()) != uid) {
		return nil
	}
	return c.waitGone(ctx, held, uid)
}

// deleteOnce sends one DELETE. It returns the Application when finalizers
// hold it, nil when it is gone.
func (c *Client) deleteOnce(ctx context.Context, namespace, name string, opts metav1.DeleteOptions, body []byte) (*unstructured.Unstructured, error) {
	if c.raw == nil {
		return nil, c.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace).Delete(ctx, name, opts)
	}
	gvr := dpapi.ApplicationGVR
	raw, err := c.raw.Delete().AbsPath("/apis", gvr.Group, gvr.Version, "namespaces", namespace, gvr.Resource, name).
		SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		// An answer this client cannot read: read the Application.
		return c.getWithRetry(ctx, c.dyn.Resource(gvr).Namespace(namespace), name)
	}
	if u.GetKind() == "Status" || len(u.GetFinalizers()) == 0 {
		// A success Status (or an object without finalizers) answers a
		// deletion that is done.
		return nil, nil
	}
	return u, nil
}

// waitGone waits until the Application held (by finalizers, as the DELETE
// or a read returned it) no longer exists: a deletion on the namespace's
// shared watch, an object of another UID under its name, or its absence
// from a list after an expired resourceVersion.
func (c *Client) waitGone(ctx context.Context, held *unstructured.Unstructured, uid string) error {
	w := c.hub.join(held.GetNamespace(), held.GetName(), held.GetResourceVersion())
	defer c.hub.leave(w)
	last := held
	var lastErr error
	for {
		ev, err := w.next(ctx)
		switch {
		case ctx.Err() != nil:
			msg := "timed out waiting for the Application to disappear (finalizers still pending?). Last status: " + StatusSummary(last)
			if lastErr != nil {
				msg += ". Last error: " + lastErr.Error()
			}
			return errors.New(msg)
		case err == nil && ev.note != nil:
			lastErr = ev.note
		case err == nil && ev.err != nil:
			err = ev.err
		case err == nil && (ev.deleted || (uid != "" && string(ev.obj.GetUID()) != uid)):
			return nil
		case err == nil:
			last = ev.obj
		}
		if err != nil {
			return fmt.Errorf("waiting for the Application %s/%s to disappear: %w", held.GetNamespace(), held.GetName(), err)
		}
	}
}
