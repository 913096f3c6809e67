package localdp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// PackageVersionSeed describes one ApplicationPackageVersion to publish.
type PackageVersionSeed struct {
	Repository string // PackageRepository name
	Package    string // ApplicationPackage name
	Version    string // e.g. v1.0.0
	// Dir is a package folder holding openapi/; its schemas are published
	// with the engine, as DP publishes them when it scans a repository.
	Dir string
	// SettingsSchema and ValuesSchema (JSON or YAML objects) are published
	// as given when Dir is empty; ValuesSchema may be empty.
	SettingsSchema []byte
	ValuesSchema   []byte
	// Metadata becomes status.packageMetadata (a default when nil).
	Metadata map[string]any
	// Draft labels the version packages.deckhouse.io/draft=true.
	Draft bool
	// NotLoaded sets MetadataLoaded=False (the version cannot be installed).
	NotLoaded bool
}

// ResourceSeed describes one AvailableClusterResource.
type ResourceSeed struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"` // the x-deckhouse-grantable-resource value, e.g. storageclasses
	Default   string   `json:"default,omitempty"`
	Available []string `json:"available"`
}

// PackageSeedConfig is one package version in a Config file.
type PackageSeedConfig struct {
	Repository string `json:"repository"`
	Package    string `json:"package"`
	Version    string `json:"version"`
	// Dir is the package folder, relative to the config file.
	Dir       string         `json:"dir"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Draft     bool           `json:"draft,omitempty"`
	NotLoaded bool           `json:"notLoaded,omitempty"`
}

// Config is what the CLI seeds, read from YAML:
//
//	namespaces: [team-a]
//	packages:
//	  - {repository: deckhouse, package: demo, version: v1.0.0, dir: packages/demo}
//	resources:
//	  - {namespace: team-a, name: storageclasses, default: fast, available: [fast, slow]}
type Config struct {
	Namespaces []string            `json:"namespaces,omitempty"`
	Packages   []PackageSeedConfig `json:"packages,omitempty"`
	Resources  []ResourceSeed      `json:"resources,omitempty"`
}

// LoadConfig reads a Config file; package dirs are resolved against the
// file's folder.
func LoadConfig(path string) (Config, error) {
	var cfg Config
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	base := filepath.Dir(path)
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		if p.Repository == "" || p.Package == "" || p.Version == "" || p.Dir == "" {
			return cfg, fmt.Errorf("%s: packages[%d]: repository, package, version and dir are required", path, i)
		}
		if !filepath.IsAbs(p.Dir) {
			p.Dir = filepath.Join(base, p.Dir)
		}
	}
	for i, r := range cfg.Resources {
		if r.Namespace == "" || r.Name == "" {
			return cfg, fmt.Errorf("%s: resources[%d]: namespace and name are required", path, i)
		}
	}
	return cfg, nil
}

// Seed creates everything cfg describes.
func (cp *ControlPlane) Seed(ctx context.Context, cfg Config) error {
	for _, ns := range cfg.Namespaces {
		if err := cp.EnsureNamespace(ctx, ns); err != nil {
			return err
		}
	}
	for _, p := range cfg.Packages {
		if err := cp.SeedPackageVersion(ctx, PackageVersionSeed{
			Repository: p.Repository, Package: p.Package, Version: p.Version, Dir: p.Dir,
			Metadata: p.Metadata, Draft: p.Draft, NotLoaded: p.NotLoaded,
		}); err != nil {
			return err
		}
	}
	for _, r := range cfg.Resources {
		if err := cp.SeedAvailableClusterResource(ctx, r.Namespace, r.Name, r.Default, r.Available); err != nil {
			return err
		}
	}
	return nil
}

var namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// EnsureNamespace creates the namespace ns unless it exists.
func (cp *ControlPlane) EnsureNamespace(ctx context.Context, ns string) error {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
	}}
	_, err := cp.dyn.Resource(namespaceGVR).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}

// SeedPackageVersion publishes a package version: it creates the
// PackageRepository and the ApplicationPackage when missing, lists the
// repository in the package's status.availableRepositories, and creates (or
// updates) the ApplicationPackageVersion with its published schemas,
// metadata and MetadataLoaded condition.
func (cp *ControlPlane) SeedPackageVersion(ctx context.Context, s PackageVersionSeed) error {
	if s.Repository == "" || s.Package == "" || s.Version == "" {
		return errors.New("seed package version: repository, package and version are required")
	}
	name := dpapi.PackageVersionName(s.Repository, s.Package, s.Version)
	settings, values, err := s.published()
	if err != nil {
		return fmt.Errorf("seed %s: %w", name, err)
	}
	if err := cp.ensureRepository(ctx, s.Repository); err != nil {
		return err
	}
	if err := cp.ensurePackage(ctx, s.Package, s.Repository); err != nil {
		return err
	}

	labels := map[string]any{LabelPackage: s.Package}
	if s.Draft {
		labels[LabelDraft] = "true"
	}
	client := cp.dyn.Resource(dpapi.ApplicationPackageVersionGVR)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1",
		"kind":       "ApplicationPackageVersion",
		"metadata":   map[string]any{"name": name, "labels": labels},
		"spec": map[string]any{
			"packageName":           s.Package,
			"packageRepositoryName": s.Repository,
			"packageVersion":        s.Version,
		},
	}}
	created, err := client.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		created, err = client.Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("create ApplicationPackageVersion %s: %w", name, err)
	}

	schemas := map[string]any{"settingsSchema": map[string]any{"openAPIV3Schema": settings}}
	if values != nil {
		schemas["valuesSchema"] = map[string]any{"openAPIV3Schema": values}
	}
	metadata := s.Metadata
	if metadata == nil {
		metadata = map[string]any{
			"description": map[string]any{"en": fmt.Sprintf("Package %s %s from repository %s.", s.Package, s.Version, s.Repository)},
		}
	}
	loaded := metav1.Condition{
		Type: CondMetadataLoaded, Status: metav1.ConditionTrue, Reason: CondMetadataLoaded,
		Message: "", LastTransitionTime: metav1.NewTime(time.Now()),
	}
	if s.NotLoaded {
		loaded.Status, loaded.Reason, loaded.Message = metav1.ConditionFalse, "DownloadFailed", "package metadata has not been loaded"
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := created
		if cur == nil {
			var err error
			if cur, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		created = nil
		lbls := cur.GetLabels()
		if lbls == nil {
			lbls = map[string]string{}
		}
		if _, isDraft := lbls[LabelDraft]; isDraft != s.Draft {
			if s.Draft {
				lbls[LabelDraft] = "true"
			} else {
				delete(lbls, LabelDraft)
			}
			cur.SetLabels(lbls)
			var err error
			if cur, err = client.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		conds := readConditions(cur)
		meta.SetStatusCondition(&conds, loaded)
		status := map[string]any{
			"packageSchemas":  schemas,
			"packageMetadata": toJSONValue(metadata),
			"conditions":      conditionsToUnstructured(conds),
		}
		if usedBy, ok, _ := unstructured.NestedFieldNoCopy(cur.Object, "status", "usedBy"); ok {
			status["usedBy"] = usedBy
		}
		cur.Object["status"] = status
		_, err := client.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}

// published returns the published settings and values schemas as JSON objects.
func (s PackageVersionSeed) published() (settings, values map[string]any, err error) {
	var sb, vb []byte
	if s.Dir != "" {
		pkg, err := engine.LoadDir(s.Dir)
		if err != nil {
			return nil, nil, err
		}
		sb, vb = pkg.PublishedSettings(), pkg.PublishedValues()
	} else {
		if len(s.SettingsSchema) == 0 {
			return nil, nil, errors.New("either Dir or SettingsSchema is required")
		}
		sb, vb = s.SettingsSchema, s.ValuesSchema
	}
	if settings, err = decodeObject(sb); err != nil {
		return nil, nil, fmt.Errorf("settings schema: %w", err)
	}
	if len(vb) > 0 {
		if values, err = decodeObject(vb); err != nil {
			return nil, nil, fmt.Errorf("values schema: %w", err)
		}
	}
	return settings, values, nil
}

func decodeObject(data []byte) (map[string]any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	m, ok := toJSONValue(v).(map[string]any)
	if !ok {
		return nil, errors.New("not an object")
	}
	return m, nil
}

func (cp *ControlPlane) ensureRepository(ctx context.Context, repo string) error {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1",
		"kind":       "PackageRepository",
		"metadata":   map[string]any{"name": repo},
		"spec": map[string]any{
			"registry":     map[string]any{"repo": "registry.local/" + repo, "scheme": "HTTPS"},
			"scanInterval": "15m",
		},
	}}
	_, err := cp.dyn.Resource(dpapi.PackageRepositoryGVR).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create PackageRepository %s: %w", repo, err)
	}
	return nil
}

func (cp *ControlPlane) ensurePackage(ctx context.Context, pkg, repo string) error {
	client := cp.dyn.Resource(dpapi.ApplicationPackageGVR)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1",
		"kind":       "ApplicationPackage",
		"metadata":   map[string]any{"name": pkg},
	}}
	if _, err := client.Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create ApplicationPackage %s: %w", pkg, err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := client.Get(ctx, pkg, metav1.GetOptions{})
		if err != nil {
			return err
		}
		repos, _, _ := unstructured.NestedStringSlice(cur.Object, "status", "availableRepositories")
		if slices.Contains(repos, repo) {
			return nil
		}
		repos = append(repos, repo)
		if err := unstructured.SetNestedStringSlice(cur.Object, repos, "status", "availableRepositories"); err != nil {
			return err
		}
		if _, ok, _ := unstructured.NestedBool(cur.Object, "status", "installed"); !ok {
			_ = unstructured.SetNestedField(cur.Object, false, "status", "installed")
		}
		_, err = client.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update ApplicationPackage %s status: %w", pkg, err)
	}
	return nil
}

// grantedKinds names the kinds of well-known grantable resources.
var grantedKinds = map[string]string{
	"storageclasses":  "StorageClass",
	"ingressclasses":  "IngressClass",
	"priorityclasses": "PriorityClass",
}

// SeedAvailableClusterResource creates (or replaces the status of) the
// AvailableClusterResource name in namespace, creating the namespace if
// needed. def is the project default ("" for none); available lists the
// names granted to the project (def is added when missing).
func (cp *ControlPlane) SeedAvailableClusterResource(ctx context.Context, namespace, name, def string, available []string) error {
	if namespace == "" || name == "" {
		return errors.New("seed AvailableClusterResource: namespace and name are required")
	}
	if err := cp.EnsureNamespace(ctx, namespace); err != nil {
		return err
	}
	names := append([]string(nil), available...)
	if def != "" && !slices.Contains(names, def) {
		names = append(names, def)
	}
	items := make([]any, 0, len(names))
	for _, n := range names {
		items = append(items, map[string]any{"name": n, "default": n == def})
	}
	kind := grantedKinds[name]
	if kind == "" {
		kind = name
	}
	status := map[string]any{
		"available":           items,
		"availableCount":      int64(len(names)),
		"grantedResourceKind": kind,
	}
	if def != "" {
		status["default"] = def
	}
	client := cp.dyn.Resource(dpapi.AvailableClusterResourceGVR).Namespace(namespace)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "multitenancy.deckhouse.io/v1alpha1",
		"kind":       "AvailableClusterResource",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
	}}
	if _, err := client.Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create AvailableClusterResource %s/%s: %w", namespace, name, err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Object["status"] = status
		_, err = client.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update AvailableClusterResource %s/%s status: %w", namespace, name, err)
	}
	return nil
}
