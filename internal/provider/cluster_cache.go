package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"golang.org/x/sync/singleflight"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// The DP resources the provider reads and writes. Their plural names are
// fixed, so the provider never needs discovery or OpenAPI downloads.
var (
	applicationGVR               = dpapi.ApplicationGVR
	applicationPackageGVR        = dpapi.ApplicationPackageGVR
	applicationPackageVersionGVR = dpapi.ApplicationPackageVersionGVR
	availableClusterResourceGVR  = dpapi.AvailableClusterResourceGVR
)

// packageVersionName is the name DP gives an ApplicationPackageVersion.
func packageVersionName(repository, pkg, version string) string {
	return dpapi.PackageVersionName(repository, pkg, version)
}

// packageVersionInfo is what the provider needs from one ApplicationPackageVersion.
type packageVersionInfo struct {
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
func (p *packageVersionInfo) Ready() bool {
	return p != nil && p.Found && !p.Draft && p.MetadataLoaded
}

// NotReadyReason explains, in one sentence, why Ready is false.
func (p *packageVersionInfo) NotReadyReason() string {
	switch {
	case p == nil || !p.Found:
		return fmt.Sprintf("ApplicationPackageVersion %q does not exist (not published yet, or a wrong repository, package or version)", p.Name)
	case p.Draft:
		return fmt.Sprintf("ApplicationPackageVersion %q is a draft (label packages.deckhouse.io/draft) and cannot be installed", p.Name)
	case !p.MetadataLoaded:
		return fmt.Sprintf("ApplicationPackageVersion %q has no MetadataLoaded=True condition yet", p.Name)
	case p.Package == nil && p.CompileErr != nil:
		return fmt.Sprintf("the schemas published in ApplicationPackageVersion %q do not compile: %v", p.Name, p.CompileErr)
	case p.Package == nil:
		return fmt.Sprintf("ApplicationPackageVersion %q has no published settings schema yet", p.Name)
	}
	return ""
}

// grantLookup is what an AvailableClusterResource says (Found false: no catalog).
type grantLookup struct {
	Found   bool
	Catalog engine.GrantCatalog
}

// referentLookup is the outcome of looking up an object named by an
// x-deckhouse-ui-resource-name field.
type referentLookup struct {
	Found  bool
	Labels map[string]string
}

// clusterCache remembers cluster reads for the life of one configured
// provider (one plan or one apply of OpenTofu/Terraform): each key is read
// once, concurrent callers of the same key share one request (single flight),
// and "not found" answers are remembered too. Transient errors are not
// cached. Published schemas are compiled once per name and resourceVersion.
type clusterCache struct {
	group singleflight.Group

	mu      sync.Mutex
	entries map[string]any
	reads   map[string]int // requests sent per key (observability and tests)

	apps *applicationReads // refresh reads of Applications
}

func newClusterCache() *clusterCache {
	return &clusterCache{entries: map[string]any{}, reads: map[string]int{}, apps: newApplicationReads()}
}

// caches holds one cache per configured provider.
var caches sync.Map // *ProviderData -> *clusterCache

// clusterClientsFrom is the Configure step of every cluster resource and data
// source: the provider's data and its cache, or nils before the provider is
// configured (the framework calls Configure early with no data).
func clusterClientsFrom(data any, diags *diag.Diagnostics) (*ProviderData, *clusterCache) {
	if data == nil {
		return nil, nil
	}
	pd, ok := data.(*ProviderData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *ProviderData, got %T", data))
		return nil, nil
	}
	return pd, clusterCacheFor(pd)
}

// clusterCacheFor returns the cache belonging to a configured provider.
func clusterCacheFor(pd *ProviderData) *clusterCache {
	if pd == nil {
		return newClusterCache()
	}
	c, _ := caches.LoadOrStore(pd, newClusterCache())
	cc, _ := c.(*clusterCache)
	return cc
}

// get returns the cached value of key or computes it once with fetch.
func (c *clusterCache) get(ctx context.Context, key string, fetch func(context.Context) (any, error)) (any, error) {
	c.mu.Lock()
	if v, ok := c.entries[key]; ok {
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err, _ := c.group.Do(key, func() (any, error) {
		c.mu.Lock()
		if v, ok := c.entries[key]; ok {
			c.mu.Unlock()
			return v, nil
		}
		c.reads[key]++
		c.mu.Unlock()
		countRead(key)
		v, err := fetch(ctx)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.entries[key] = v
		c.mu.Unlock()
		return v, nil
	})
	return v, err
}

// processReads counts, per cache key, the requests sent by every cache of
// this process, so tests can prove that a plan reads each key once.
var processReads sync.Map // key -> *atomic.Int64

func countRead(key string) {
	v, _ := processReads.LoadOrStore(key, new(atomic.Int64))
	if n, ok := v.(*atomic.Int64); ok {
		n.Add(1)
	}
}

// readsOf returns how many requests this process sent for key.
func readsOf(key string) int64 {
	v, ok := processReads.Load(key)
	if !ok {
		return 0
	}
	n, _ := v.(*atomic.Int64)
	return n.Load()
}

// Reads returns how many requests were sent per key.
func (c *clusterCache) Reads() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.reads))
	for k, v := range c.reads {
		out[k] = v
	}
	return out
}

// packageVersion reads (once) and compiles the ApplicationPackageVersion name.
func (c *clusterCache) packageVersion(ctx context.Context, dyn dynamic.Interface, name string) (*packageVersionInfo, error) {
	v, err := c.get(ctx, "apv/"+name, func(ctx context.Context) (any, error) {
		obj, err := dyn.Resource(applicationPackageVersionGVR).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return &packageVersionInfo{Name: name}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading ApplicationPackageVersion %q: %w", name, err)
		}
		return parsePackageVersion(obj), nil
	})
	if err != nil {
		return nil, err
	}
	info, _ := v.(*packageVersionInfo)
	return info, nil
}

// compiled caches compiled packages by name and resourceVersion across
// configured providers of one process (the bytes are also cached by the engine).
var compiled sync.Map // "name@resourceVersion" -> compileOutcome

type compileOutcome struct {
	pkg *engine.Package
	err error
}

func parsePackageVersion(obj *unstructured.Unstructured) *packageVersionInfo {
	info := &packageVersionInfo{Name: obj.GetName(), Found: true, ResourceVersion: obj.GetResourceVersion()}
	_, info.Draft = obj.GetLabels()[dpapi.LabelDraft]
	if v := obj.GetLabels()[dpapi.LabelDraft]; v == "false" {
		info.Draft = false
	}
	info.PackageName, _, _ = unstructured.NestedString(obj.Object, "spec", "packageName")
	info.Repository, _, _ = unstructured.NestedString(obj.Object, "spec", "packageRepositoryName")
	info.Version, _, _ = unstructured.NestedString(obj.Object, "spec", "packageVersion")
	info.MetadataLoaded = conditionStatus(obj, "MetadataLoaded") == "True"
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
		key := info.Name + "@" + info.ResourceVersion
		if v, ok := compiled.Load(key); ok {
			out, _ := v.(compileOutcome)
			info.Package, info.CompileErr = out.pkg, out.err
		} else {
			pkg, err := engine.LoadPublished(info.SettingsSchema, info.ValuesSchema)
			compiled.Store(key, compileOutcome{pkg: pkg, err: err})
			info.Package, info.CompileErr = pkg, err
		}
	}
	return info
}

// conditionStatus returns the status of the condition typ ("" when absent).
func conditionStatus(obj *unstructured.Unstructured, typ string) string {
	c := findCondition(obj, typ)
	if c == nil {
		return ""
	}
	s, _ := c["status"].(string)
	return s
}

// findCondition returns status.conditions[type=typ] or nil.
func findCondition(obj *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// availableRepositories reads (once) the repositories offering package pkg.
// found is false when the ApplicationPackage does not exist.
func (c *clusterCache) availableRepositories(ctx context.Context, dyn dynamic.Interface, pkg string) (repos []string, found bool, err error) {
	type result struct {
		repos []string
		found bool
	}
	v, err := c.get(ctx, "ap/"+pkg, func(ctx context.Context) (any, error) {
		obj, err := dyn.Resource(applicationPackageGVR).Get(ctx, pkg, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return result{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading ApplicationPackage %q: %w", pkg, err)
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

// grantCatalog reads (once) AvailableClusterResource name in namespace.
// A missing object or CRD means no catalog.
func (c *clusterCache) grantCatalog(ctx context.Context, dyn dynamic.Interface, namespace, name string) (grantLookup, error) {
	v, err := c.get(ctx, "acr/"+namespace+"/"+name, func(ctx context.Context) (any, error) {
		obj, err := dyn.Resource(availableClusterResourceGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return grantLookup{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading AvailableClusterResource %q in namespace %q: %w", name, namespace, err)
		}
		return grantLookup{Found: true, Catalog: dpapi.Catalog(obj)}, nil
	})
	if err != nil {
		return grantLookup{}, err
	}
	g, _ := v.(grantLookup)
	return g, nil
}

// referent reads (once) an object of gvr named name in namespace.
func (c *clusterCache) referent(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, name string) (referentLookup, error) {
	v, err := c.get(ctx, "ref/"+gvr.String()+"/"+namespace+"/"+name, func(ctx context.Context) (any, error) {
		obj, err := dyn.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return referentLookup{}, nil
		}
		if err != nil {
			return nil, err
		}
		return referentLookup{Found: true, Labels: obj.GetLabels()}, nil
	})
	if err != nil {
		return referentLookup{}, err
	}
	ref, _ := v.(referentLookup)
	return ref, nil
}
