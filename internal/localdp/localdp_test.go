package localdp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// shared is the control plane most tests use; nil when the binaries are absent.
var (
	shared     *ControlPlane
	sharedSkip string
	nsCounter  atomic.Int64
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if err := CheckBinaries(""); err != nil {
		sharedSkip = "local control plane binaries absent: " + err.Error()
		return m.Run()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, err := Start(ctx, Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "start control plane: %v\n", err)
		return 1
	}
	shared = cp
	defer func() { _ = cp.Stop() }()
	return m.Run()
}

func needControlPlane(t *testing.T) *ControlPlane {
	t.Helper()
	if shared == nil {
		t.Skip(sharedSkip)
	}
	return shared
}

// newNamespace creates a fresh namespace for one test.
func newNamespace(t *testing.T, cp *ControlPlane) string {
	t.Helper()
	ns := fmt.Sprintf("t%d-%d", time.Now().UnixNano()%100000, nsCounter.Add(1))
	if err := cp.EnsureNamespace(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns
}

func seedDemo(t *testing.T, cp *ControlPlane, version string) {
	t.Helper()
	if err := cp.SeedPackageVersion(context.Background(), PackageVersionSeed{
		Repository: "deckhouse", Package: "demo", Version: version, Dir: filepath.Join("testdata", "demo"),
	}); err != nil {
		t.Fatal(err)
	}
}

func application(ns, name, version string, settings map[string]any) *unstructured.Unstructured {
	spec := map[string]any{"packageName": "demo", "packageRepositoryName": "deckhouse", "packageVersion": version}
	if settings != nil {
		spec["settings"] = settings
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       spec,
	}}
}

func createApp(t *testing.T, cp *ControlPlane, app *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := cp.Dynamic().Resource(ApplicationGVR).Namespace(app.GetNamespace()).Create(context.Background(), app, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// condition returns the condition typ of obj (nil when absent).
func condition(obj *unstructured.Unstructured, typ string) map[string]any {
	items, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// waitCondition polls the Application until done holds and returns it.
func waitCondition(t *testing.T, cp *ControlPlane, ns, name string, done func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	client := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns)
	deadline := time.Now().Add(30 * time.Second)
	var last *unstructured.Unstructured
	for time.Now().Before(deadline) {
		obj, err := client.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		last = obj
		if done(obj) {
			return obj
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("application %s/%s: condition not reached; status: %v", ns, name, last.Object["status"])
	return nil
}

// appliedWithReason holds when ConfigurationApplied describes the current
// generation with the given reason.
func appliedWithReason(reason string) func(*unstructured.Unstructured) bool {
	return func(obj *unstructured.Unstructured) bool {
		c := condition(obj, CondConfigurationApplied)
		if c == nil {
			return false
		}
		gen, _ := c["observedGeneration"].(int64)
		return gen == obj.GetGeneration() && c["reason"] == reason
	}
}

func TestCRDs_AllKindsEmbeddedWithStatusSubresource(t *testing.T) {
	crds, err := CRDs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"applications.deckhouse.io":                           "Namespaced",
		"applicationpackageversions.deckhouse.io":             "Cluster",
		"applicationpackages.deckhouse.io":                    "Cluster",
		"packagerepositories.deckhouse.io":                    "Cluster",
		"availableclusterresources.multitenancy.deckhouse.io": "Namespaced",
	}
	if len(crds) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(crds), len(want))
	}
	for _, crd := range crds {
		scope, ok := want[crd.Name]
		if !ok {
			t.Errorf("unexpected CRD %s", crd.Name)
			continue
		}
		if string(crd.Spec.Scope) != scope {
			t.Errorf("%s: scope %s, want %s", crd.Name, crd.Spec.Scope, scope)
		}
		if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != "v1alpha1" || crd.Spec.Versions[0].Subresources == nil || crd.Spec.Versions[0].Subresources.Status == nil {
			t.Errorf("%s: want one served v1alpha1 version with a status subresource", crd.Name)
		}
	}
}

func TestLoadConfig_ResolvesPackageDirsAgainstTheFile(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("testdata", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Packages) != 1 || cfg.Packages[0].Dir != filepath.Join("testdata", "demo") {
		t.Fatalf("packages = %+v", cfg.Packages)
	}
	if len(cfg.Resources) != 1 || cfg.Resources[0].Default != "fast" {
		t.Fatalf("resources = %+v", cfg.Resources)
	}
}

func TestLoadConfig_RejectsIncompletePackage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seed.yaml")
	if err := os.WriteFile(path, []byte("packages:\n  - {repository: r, package: p}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "packages[0]") {
		t.Fatalf("err = %v, want it to name packages[0]", err)
	}
}

func TestCheckBinaries_MissingNamesMakeTools(t *testing.T) {
	err := CheckBinaries(t.TempDir())
	if !errors.Is(err, ErrBinariesMissing) || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("err = %v", err)
	}
}

func TestStart_KubeconfigReachesEveryKind(t *testing.T) {
	cp := needControlPlane(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, gvr := range []struct {
		name string
		list func() error
	}{
		{"applications", func() error {
			_, err := dyn.Resource(ApplicationGVR).Namespace("default").List(context.Background(), metav1.ListOptions{})
			return err
		}},
		{"applicationpackageversions", func() error {
			_, err := dyn.Resource(dpapi.ApplicationPackageVersionGVR).List(context.Background(), metav1.ListOptions{})
			return err
		}},
		{"applicationpackages", func() error {
			_, err := dyn.Resource(dpapi.ApplicationPackageGVR).List(context.Background(), metav1.ListOptions{})
			return err
		}},
		{"packagerepositories", func() error {
			_, err := dyn.Resource(dpapi.PackageRepositoryGVR).List(context.Background(), metav1.ListOptions{})
			return err
		}},
		{"availableclusterresources", func() error {
			_, err := dyn.Resource(dpapi.AvailableClusterResourceGVR).Namespace("default").List(context.Background(), metav1.ListOptions{})
			return err
		}},
	} {
		if err := gvr.list(); err != nil {
			t.Errorf("list %s through the kubeconfig: %v", gvr.name, err)
		}
	}
}

func TestCRD_ApplicationNameLongerThan24Rejected(t *testing.T) {
	cp := needControlPlane(t)
	ns := newNamespace(t, cp)
	app := application(ns, strings.Repeat("a", 25), "v1.0.0", nil)
	_, err := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns).Create(context.Background(), app, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("err = %v, want Invalid", err)
	}
}

func TestSeed_PublishedSchemasGivenAsBytes(t *testing.T) {
	cp := needControlPlane(t)
	ctx := context.Background()
	err := cp.SeedPackageVersion(ctx, PackageVersionSeed{
		Repository: "raw", Package: "rawpkg", Version: "v0.1.0",
		SettingsSchema: []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`),
		Draft:          true,
	})
	if err != nil {
		t.Fatal(err)
	}
	apv, err := cp.Dynamic().Resource(dpapi.ApplicationPackageVersionGVR).Get(ctx, "raw-rawpkg-v0.1.0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if apv.GetLabels()[LabelDraft] != "true" {
		t.Errorf("labels = %v, want the draft label", apv.GetLabels())
	}
	typ, _, _ := unstructured.NestedString(apv.Object, "status", "packageSchemas", "settingsSchema", "openAPIV3Schema", "properties", "a", "type")
	if typ != "string" {
		t.Errorf("published settings schema not stored: %v", apv.Object["status"])
	}
	if !metadataLoaded(apv) {
		t.Errorf("MetadataLoaded is not True")
	}
	pkg, err := cp.Dynamic().Resource(dpapi.ApplicationPackageGVR).Get(ctx, "rawpkg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	repos, _, _ := unstructured.NestedStringSlice(pkg.Object, "status", "availableRepositories")
	if len(repos) != 1 || repos[0] != "raw" {
		t.Errorf("availableRepositories = %v", repos)
	}
	if _, err := cp.Dynamic().Resource(dpapi.PackageRepositoryGVR).Get(ctx, "raw", metav1.GetOptions{}); err != nil {
		t.Errorf("PackageRepository: %v", err)
	}
}

func TestSeed_AvailableClusterResourceStatus(t *testing.T) {
	cp := needControlPlane(t)
	ns := newNamespace(t, cp)
	ctx := context.Background()
	if err := cp.SeedAvailableClusterResource(ctx, ns, "storageclasses", "fast", []string{"slow"}); err != nil {
		t.Fatal(err)
	}
	acr, err := cp.Dynamic().Resource(dpapi.AvailableClusterResourceGVR).Namespace(ns).Get(ctx, "storageclasses", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gc := dpapi.Catalog(acr)
	if gc.Default != "fast" || len(gc.Available) != 2 {
		t.Fatalf("catalog = %+v", gc)
	}
	if n, _, _ := unstructured.NestedInt64(acr.Object, "status", "availableCount"); n != 2 {
		t.Errorf("availableCount = %d", n)
	}
	if k, _, _ := unstructured.NestedString(acr.Object, "status", "grantedResourceKind"); k != "StorageClass" {
		t.Errorf("grantedResourceKind = %q", k)
	}
}
