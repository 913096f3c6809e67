package dpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// AnnotationPendingCreate marks an Application this provider created but
// could not record in a state (the create's wait failed, or the outcome of
// its write is unknown). Its value is the field manager. A later create by
// the same field manager adopts such an Application instead of refusing it,
// and its apply, which does not carry the annotation, removes it.
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

// Apply writes the Application (an apply configuration: apiVersion, kind,
// metadata.name/namespace/labels/annotations, spec) with server-side apply.
// The PATCH is idempotent, so it is retried on server errors, throttling
// (honouring Retry-After) and cut connections until ctx ends.
//
// A create first looks the Application up, reading only metadata: the
// first create in a namespace with a GET, the next ones in one LIST of the
// namespace (which the creates of this client do not invalidate: they only
// add Applications it writes itself).
func (c *Client) Apply(ctx context.Context, obj map[string]any, opts ApplyOptions) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: obj}
	ns, name := u.GetNamespace(), u.GetName()
	client := c.dyn.Resource(dpapi.ApplicationGVR).Namespace(ns)
	if opts.Create {
		existing, err := c.existing(ctx, ns, name)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, &WriteError{Op: "apply", Namespace: ns, Name: name, Err: fmt.Errorf("checking whether the Application exists: %w", err)}
		case existing.GetAnnotations()[AnnotationPendingCreate] == opts.FieldManager:
			c.log(ctx, "adopting an Application an earlier create of this provider wrote", map[string]any{"namespace": ns, "name": name})
		default:
			return nil, &ExistsError{Namespace: ns, Name: name, Managers: managers(existing)}
		}
	}
	return c.apply(ctx, client, u, opts)
}

// existing looks an Application up for a create, retrying transient errors.
func (c *Client) existing(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	b := Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second}
	for {
		rctx, cancel := c.readCtx(ctx)
		u, err := c.creates.get(rctx, namespace, name)
		cancel()
		if err == nil || !Transient(err) || ctx.Err() != nil {
			return u, err
		}
		if sleep(ctx, b.Next()) != nil {
			return nil, err
		}
	}
}

// MarkPendingCreate adds AnnotationPendingCreate to an Application whose
// create cannot be recorded, so the next create adopts it. obj is the apply
// configuration of the create; it is applied again with the annotation, by
// the same field manager. It runs on a context of its own, since the
// create's may have ended.
func (c *Client) MarkPendingCreate(ctx context.Context, obj map[string]any, opts ApplyOptions) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	u := (&unstructured.Unstructured{Object: obj}).DeepCopy()
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[AnnotationPendingCreate] = opts.FieldManager
	u.SetAnnotations(ann)
	_, err := c.apply(ctx, c.dyn.Resource(dpapi.ApplicationGVR).Namespace(u.GetNamespace()), u, opts)
	return err
}

func (c *Client) apply(ctx context.Context, client dynamic.ResourceInterface, u *unstructured.Unstructured, opts ApplyOptions) (*unstructured.Unstructured, error) {
	body, err := json.Marshal(u.Object)
	if err != nil {
		return nil, fmt.Errorf("encoding the Application: %w", err)
	}
	force := opts.Force
	c.apps.forget(u.GetNamespace())
	out, err := retryWrite(ctx, func(ctx context.Context) (*unstructured.Unstructured, error) {
		return client.Patch(ctx, u.GetName(), k8stypes.ApplyPatchType, body, metav1.PatchOptions{FieldManager: opts.FieldManager, Force: &force})
	})
	if err != nil {
		if ce := conflictFrom(u.GetNamespace(), u.GetName(), err); ce != nil {
			return nil, ce
		}
		var we *WriteError
		if errors.As(err, &we) {
			we.Op, we.Namespace, we.Name = "apply", u.GetNamespace(), u.GetName()
			return nil, we
		}
		return nil, err
	}
	return out, nil
}

// retryWrite sends an idempotent write until it succeeds, fails for good, or
// ctx ends. A failure after the request may have reached the server is a
// *WriteError with MayHaveLanded.
func retryWrite(ctx context.Context, write func(context.Context) (*unstructured.Unstructured, error)) (*unstructured.Unstructured, error) {
	b := writeBackoff
	mayHaveLanded := false
	for {
		out, err := write(ctx)
		if err == nil {
			return out, nil
		}
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			// No answer: the request may have been processed.
			mayHaveLanded = true
		}
		if !Transient(err) || ctx.Err() != nil {
			if !Transient(err) && errors.As(err, &status) {
				return nil, err
			}
			return nil, &WriteError{Err: err, MayHaveLanded: mayHaveLanded}
		}
		delay := b.Next()
		if s, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(s)*time.Second > delay {
			delay = time.Duration(s) * time.Second
		}
		if sleep(ctx, delay) != nil {
			return nil, &WriteError{Err: err, MayHaveLanded: mayHaveLanded}
		}
	}
}

func managers(u *unstructured.Unstructured) []string {
	set := map[string]bool{}
	for _, mf := range u.GetManagedFields() {
		set[mf.Manager] = true
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Delete deletes the Application with a UID precondition (a newer object of
// the same name is never deleted), retrying transient errors, and, when wait
// is set, waits until it is gone. A missing Application is not an error.
func (c *Client) Delete(ctx context.Context, namespace, name, uid string, wait bool) error {
	client := c.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace)
	c.apps.forget(namespace)
	opts := metav1.DeleteOptions{}
	if uid != "" {
		u := k8stypes.UID(uid)
		opts.Preconditions = &metav1.Preconditions{UID: &u}
	}
	_, err := retryWrite(ctx, func(ctx context.Context) (*unstructured.Unstructured, error) {
		err := client.Delete(ctx, name, opts)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
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
	return c.waitGone(ctx, client, name, uid)
}

// waitGone waits until the Application (of that UID, when given) no longer
// exists, retrying transient errors until ctx ends.
func (c *Client) waitGone(ctx context.Context, client dynamic.ResourceInterface, name, uid string) error {
	b := Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second}
	var last *unstructured.Unstructured
	var lastErr error
	for {
		u, err := c.getWithRetry(ctx, client, name)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err == nil && uid != "" && string(u.GetUID()) != uid:
			return nil
		case err == nil:
			last = u
			rv := u.GetResourceVersion()
			events, werr := c.watchOnce(ctx, client, name, &rv, func(u *unstructured.Unstructured) (bool, error) {
				last = u
				return false, nil
			})
			var wait *WaitError
			if errors.As(werr, &wait) && wait.Deleted {
				return nil
			}
			if werr != nil {
				lastErr = werr
			}
			if events > 0 {
				b.Reset()
				continue
			}
		default:
			lastErr = err
		}
		if ctx.Err() != nil || sleep(ctx, b.Next()) != nil {
			msg := "timed out waiting for the Application to disappear (finalizers still pending?)"
			if last != nil {
				msg += ". Last status: " + StatusSummary(last)
			}
			if lastErr != nil {
				msg += ". Last error: " + lastErr.Error()
			}
			return errors.New(msg)
		}
	}
}
