package dpclient

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// hubClient is the Client as the source of its shared watches (watchhub.go):
// the requests of the Client's dynamic client, each ending with the Client's
// verdict on the API server when there is one.
type hubClient struct{ c *Client }

func (h hubClient) watch(ctx context.Context, ns string, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := h.c.dyn.Resource(dpapi.ApplicationGVR).Namespace(ns).Watch(ctx, opts)
	return w, h.c.outage.ShareVerdict(err)
}

func (h hubClient) list(ctx context.Context, ns string) (*unstructured.UnstructuredList, error) {
	rctx, cancel := h.c.readCtx(ctx)
	defer cancel()
	list, err := h.c.dyn.Resource(dpapi.ApplicationGVR).Namespace(ns).List(rctx, metav1.ListOptions{})
	return list, h.c.outage.ShareVerdict(err)
}

func (h hubClient) get(ctx context.Context, ns, name string) (*unstructured.Unstructured, error) {
	return h.c.getWithRetry(ctx, h.c.dyn.Resource(dpapi.ApplicationGVR).Namespace(ns), name)
}

func (h hubClient) requestTimeout() time.Duration { return h.c.opts.ReadTimeout }

func (h hubClient) log(ctx context.Context, msg string, fields map[string]any) {
	h.c.log(ctx, msg, fields)
}
