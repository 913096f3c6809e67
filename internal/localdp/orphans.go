package localdp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// Annotations by which an object outlives its release, as DP's orphan
// deletion reads them (nelm's names): a keep or skip-delete resource policy
// (the werf one first, else Helm's), or ownership shared with anyone.
const (
	AnnotationHelmResourcePolicy = "helm.sh/resource-policy"
	AnnotationWerfResourcePolicy = "werf.io/resource-policy"
	AnnotationOwnership          = "werf.io/ownership"
)

// deleteOrphans simulates what DP does after it uninstalled an
// application's release: it deletes the objects of the package's
// orphanResources kinds in the application's namespace that carry the label
// packages.deckhouse.io/instance=<name>, skipping cluster-scoped kinds and
// objects that outlive their release. A version that cannot be read or
// compiled has no orphans to delete.
func (c *controller) deleteOrphans(ctx context.Context, app *unstructured.Unstructured) error {
	obj, exists, err := c.apvs.GetStore().GetByKey(versionName(app))
	apv, ok := obj.(*unstructured.Unstructured)
	if err != nil || !exists || !ok {
		return nil //nolint:nilerr // no version, no declared orphans
	}
	pkg, err := c.compiled(apv)
	if err != nil {
		return nil //nolint:nilerr // an uncompilable version declares nothing DP could read
	}
	kinds := pkg.OrphanResources()
	if len(kinds) == 0 {
		return nil
	}
	_, lists, err := c.disc.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return fmt.Errorf("discover served resources: %w", err)
	}
	selector := LabelInstance + "=" + app.GetName()
	var errs error
	for _, k := range kinds {
		for _, gvr := range servingOrphan(lists, k) {
			errs = errors.Join(errs, c.deleteLabelled(ctx, gvr, app.GetNamespace(), selector))
		}
	}
	return errs
}

// servingOrphan returns the namespaced resources that serve kind k at its
// version: in the group the version names, or in any group for a bare one.
func servingOrphan(lists []*metav1.APIResourceList, k engine.OrphanResource) []schema.GroupVersionResource {
	want, err := schema.ParseGroupVersion(k.Version)
	if err != nil || want.Version == "" {
		return nil
	}
	var out []schema.GroupVersionResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil || gv.Version != want.Version || (want.Group != "" && gv.Group != want.Group) {
			continue
		}
		for _, r := range list.APIResources {
			if r.Kind != k.Kind || strings.Contains(r.Name, "/") || !r.Namespaced ||
				!slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
				continue
			}
			out = append(out, gv.WithResource(r.Name))
		}
	}
	return out
}

// deleteLabelled deletes the objects of gvr in ns matched by selector that
// do not outlive their release.
func (c *controller) deleteLabelled(ctx context.Context, gvr schema.GroupVersionResource, ns, selector string) error {
	client := c.dyn.Resource(gvr).Namespace(ns)
	list, err := client.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", gvr, err)
	}
	var errs error
	background := metav1.DeletePropagationBackground
	for i := range list.Items {
		o := &list.Items[i]
		if o.GetDeletionTimestamp() != nil || outlivesRelease(o.GetAnnotations()) {
			continue
		}
		err := client.Delete(ctx, o.GetName(), metav1.DeleteOptions{
			PropagationPolicy: &background,
			Preconditions:     metav1.NewUIDPreconditions(string(o.GetUID())),
		})
		switch {
		case err == nil:
			c.logf("orphan %s %s/%s deleted (simulated orphan deletion)", gvr.Resource, ns, o.GetName())
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		default:
			errs = errors.Join(errs, fmt.Errorf("delete %s %q: %w", gvr, o.GetName(), err))
		}
	}
	return errs
}

// outlivesRelease reports whether annotations keep an object past its
// release: ownership "anyone", or a keep or skip-delete resource policy.
func outlivesRelease(a map[string]string) bool {
	if strings.TrimSpace(a[AnnotationOwnership]) == "anyone" {
		return true
	}
	policies, ok := a[AnnotationWerfResourcePolicy]
	if !ok {
		policies = a[AnnotationHelmResourcePolicy]
	}
	return slices.ContainsFunc(strings.Split(policies, ","), func(p string) bool {
		p = strings.TrimSpace(p)
		return p == "keep" || p == "skip-delete"
	})
}
