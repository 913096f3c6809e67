package dpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// PackageVersion is what the provider needs from one ApplicationPackageVersion.
type PackageVersion struct {
	Name            string
	Found           bool
	ResourceVersion string
	Draft           bool
	MetadataLoaded  bool
	PackageName     string
	Repository      string
	Version         string
	SettingsSchema  []byte         // JSON, nil when not published
	ValuesSchema    []byte         // JSON, nil when not published
	Metadata        map[string]any // status.packageMetadata
	Package         *engine.Package
	CompileErr      error // the published schemas do not compile
}

// Ready reports whether an Application may be installed from this version.
func (p *PackageVersion) Ready() bool {
	return p != nil && p.Found && !p.Draft && p.MetadataLoaded
}

// NotReadyReason explains, in one sentence, why Ready is false.
func (p *PackageVersion) NotReadyReason() string {
	switch {
	case p == nil || !p.Found:
		return fmt.Sprintf("ApplicationPackageVersion %q does not exist (not published yet, or a wrong repository, package or version)", p.Name)
	case p.Draft:
		return fmt.Sprintf("ApplicationPackageVersion %q is a draft (label %s) and cannot be installed", p.Name, dpapi.LabelDraft)
	case !p.MetadataLoaded:
		return fmt.Sprintf("ApplicationPackageVersion %q has no MetadataLoaded=True condition yet (DP has not loaded the version)", p.Name)
	case p.Package == nil && p.CompileErr != nil:
		return fmt.Sprintf("the schemas published in ApplicationPackageVersion %q do not compile: %v", p.Name, p.CompileErr)
	case p.Package == nil:
		return fmt.Sprintf("ApplicationPackageVersion %q has no published settings schema yet", p.Name)
	}
	return ""
}

// PackageVersion reads (once) and compiles the ApplicationPackageVersion name.
func (c *Client) PackageVersion(ctx context.Context, name string) (*PackageVersion, error) {
	v, err := c.cached(ctx, "apv/"+name, func(ctx context.Context) (any, error) {
		obj, err := c.dyn.Resource(dpapi.ApplicationPackageVersionGVR).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return &PackageVersion{Name: name}, nil
		}
		if err != nil {
			return nil, &ReadError{What: fmt.Sprintf("ApplicationPackageVersion %q", name), Err: err}
		}
		return ParsePackageVersion(obj), nil
	})
	if err != nil {
		return nil, err
	}
	info, _ := v.(*PackageVersion)
	return info, nil
}

// RefreshPackageVersion reads the ApplicationPackageVersion name again, past
// the read cache, and keeps the answer for the reads after it: for an apply
// that waits for a version published in the same run. Concurrent refreshes
// of one name share one request.
func (c *Client) RefreshPackageVersion(ctx context.Context, name string) (*PackageVersion, error) {
	c.mu.Lock()
	delete(c.entries, "apv/"+name)
	c.mu.Unlock()
	return c.PackageVersion(ctx, name)
}

// PackageVersionHeader reads what identifies an ApplicationPackageVersion
// and whether it can be installed (name, spec, draft label, MetadataLoaded),
// without its schemas: for listing versions.
func PackageVersionHeader(obj *unstructured.Unstructured) *PackageVersion {
	info := &PackageVersion{Name: obj.GetName(), Found: true, ResourceVersion: obj.GetResourceVersion()}
	_, info.Draft = obj.GetLabels()[dpapi.LabelDraft]
	if v := obj.GetLabels()[dpapi.LabelDraft]; v == "false" {
		info.Draft = false
	}
	info.PackageName, _, _ = unstructured.NestedString(obj.Object, "spec", "packageName")
	info.Repository, _, _ = unstructured.NestedString(obj.Object, "spec", "packageRepositoryName")
	info.Version, _, _ = unstructured.NestedString(obj.Object, "spec", "packageVersion")
	info.MetadataLoaded = meta.IsStatusConditionTrue(Conditions(obj), "MetadataLoaded")
	return info
}

// ParsePackageVersion reads an ApplicationPackageVersion and compiles its
// published schemas (the engine caches compiled packages by their bytes).
func ParsePackageVersion(obj *unstructured.Unstructured) *PackageVersion {
	info := PackageVersionHeader(obj)
	if m, ok, _ := unstructured.NestedMap(obj.Object, "status", "packageMetadata"); ok {
		info.Metadata = m
	}
	if s, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "packageSchemas", "settingsSchema", "openAPIV3Schema"); ok && s != nil {
		info.SettingsSchema, _ = json.Marshal(s)
	}
	if s, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "packageSchemas", "valuesSchema", "openAPIV3Schema"); ok && s != nil {
		info.ValuesSchema, _ = json.Marshal(s)
	}
	if info.SettingsSchema != nil {
		info.Package, info.CompileErr = engine.LoadPublished(info.SettingsSchema, info.ValuesSchema)
	}
	return info
}

// AvailableRepositories reads (once) the repositories offering package pkg.
// found is false when the ApplicationPackage does not exist.
func (c *Client) AvailableRepositories(ctx context.Context, pkg string) (repos []string, found bool, err error) {
	type result struct {
		repos []string
		found bool
	}
	v, err := c.cached(ctx, "ap/"+pkg, func(ctx context.Context) (any, error) {
		obj, err := c.dyn.Resource(dpapi.ApplicationPackageGVR).Get(ctx, pkg, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return result{}, nil
		}
		if err != nil {
			return nil, &ReadError{What: fmt.Sprintf("ApplicationPackage %q", pkg), Err: err}
		}
		raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "availableRepositories")
		var out []string
		for _, r := range raw {
			switch r := r.(type) {
			case string:
				out = append(out, r)
			case map[string]any: // tolerate {name: ...} items
				if n, ok := r["name"].(string); ok {
					out = append(out, n)
				}
			}
		}
		sort.Strings(out)
		return result{repos: out, found: true}, nil
	})
	if err != nil {
		return nil, false, err
	}
	r, _ := v.(result)
	return r.repos, r.found, nil
}

// GrantLookup is what an AvailableClusterResource says (Found false: no catalog).
type GrantLookup struct {
	Found   bool
	Catalog engine.GrantCatalog
}

// GrantCatalog reads (once) AvailableClusterResource name in namespace.
// A missing object or CRD means no catalog.
func (c *Client) GrantCatalog(ctx context.Context, namespace, name string) (GrantLookup, error) {
	return c.grantCatalog(ctx, "acr/", namespace, name)
}

// GrantCatalogAtWrite reads AvailableClusterResource name in namespace once
// more for the writes of this client, past the reads of its plans: an apply
// compares the project default its plan showed with the one DP will inject.
// Later writes share that read.
func (c *Client) GrantCatalogAtWrite(ctx context.Context, namespace, name string) (GrantLookup, error) {
	return c.grantCatalog(ctx, "acr-write/", namespace, name)
}

func (c *Client) grantCatalog(ctx context.Context, prefix, namespace, name string) (GrantLookup, error) {
	v, err := c.cached(ctx, prefix+namespace+"/"+name, func(ctx context.Context) (any, error) {
		obj, err := c.dyn.Resource(dpapi.AvailableClusterResourceGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return GrantLookup{}, nil
		}
		if err != nil {
			return nil, &ReadError{What: fmt.Sprintf("AvailableClusterResource %q in namespace %q", name, namespace), Err: err}
		}
		return GrantLookup{Found: true, Catalog: dpapi.Catalog(obj)}, nil
	})
	if err != nil {
		return GrantLookup{}, err
	}
	g, _ := v.(GrantLookup)
	return g, nil
}

// Referent is the outcome of looking up an object named by an
// x-deckhouse-ui-resource-name field.
type Referent struct {
	Found  bool
	Labels map[string]string
}

// Referent reads (once) the metadata of the object of apiVersion/kind named
// name in namespace: only its metadata, since referents are often Secrets.
// The resource name comes from discovery (the first referent of a kind asks
// the API server once).
func (c *Client) Referent(ctx context.Context, apiVersion, kind, namespace, name string) (Referent, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return Referent{}, err
	}
	gvk := gv.WithKind(kind)
	v, err := c.cached(ctx, "ref/"+gvk.String()+"/"+namespace+"/"+name, func(ctx context.Context) (any, error) {
		gvr, err := c.resourceFor(gvk)
		if err != nil {
			return nil, err
		}
		var labels map[string]string
		if c.meta != nil {
			obj, err := c.meta.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return Referent{}, nil
			}
			if err != nil {
				return nil, err
			}
			labels = obj.GetLabels()
		} else {
			obj, err := c.dyn.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return Referent{}, nil
			}
			if err != nil {
				return nil, err
			}
			labels = obj.GetLabels()
		}
		return Referent{Found: true, Labels: labels}, nil
	})
	if err != nil {
		return Referent{}, err
	}
	ref, _ := v.(Referent)
	return ref, nil
}

func (c *Client) resourceFor(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	if c.mapper == nil {
		gvr, _ := meta.UnsafeGuessKindToResource(gvk)
		return gvr, nil
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupVersionResource{}, fmt.Errorf("finding the resource of kind %s: %w", gvk.Kind, err)
	}
	return m.Resource, nil
}

// Conditions returns status.conditions of an object as typed conditions
// (entries that do not decode are skipped).
func Conditions(obj *unstructured.Unstructured) []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := make([]metav1.Condition, 0, len(raw))
	for _, c := range raw {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		var cond metav1.Condition
		cond.Type, _ = m["type"].(string)
		s, _ := m["status"].(string)
		cond.Status = metav1.ConditionStatus(s)
		cond.Reason, _ = m["reason"].(string)
		cond.Message, _ = m["message"].(string)
		cond.ObservedGeneration = asInt64(m["observedGeneration"])
		if cond.Type != "" {
			out = append(out, cond)
		}
	}
	return out
}

func asInt64(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return 0
}
