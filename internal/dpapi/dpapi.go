package dpapi

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// Resources of DP's package and multitenancy API groups.
var (
	ApplicationGVR               = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "applications"}
	ApplicationPackageGVR        = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "applicationpackages"}
	ApplicationPackageVersionGVR = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "applicationpackageversions"}
	PackageRepositoryGVR         = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "packagerepositories"}
	AvailableClusterResourceGVR  = schema.GroupVersionResource{Group: "multitenancy.deckhouse.io", Version: "v1alpha1", Resource: "availableclusterresources"}
)

// Labels and annotations DP reads or writes.
const (
	// LabelDraft marks a draft ApplicationPackageVersion, which cannot be installed.
	LabelDraft = "packages.deckhouse.io/draft"
	// AnnotationAllowDestructiveSwitch acknowledges a destructive enum switch
	// on an Application; the provider writes "true".
	AnnotationAllowDestructiveSwitch = "applications.deckhouse.io/allow-destructive-settings-switch"
)

// PackageVersionName is the ApplicationPackageVersion name DP builds from an
// Application's spec: <repository>-<package>-<version>.
func PackageVersionName(repository, pkg, version string) string {
	return repository + "-" + pkg + "-" + version
}

// Catalog reads the grant catalog of an AvailableClusterResource: the
// project default (status.default, else the first available entry marked
// default) and the names in status.available.
func Catalog(acr *unstructured.Unstructured) engine.GrantCatalog {
	var gc engine.GrantCatalog
	gc.Default, _, _ = unstructured.NestedString(acr.Object, "status", "default")
	items, _, _ := unstructured.NestedSlice(acr.Object, "status", "available")
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		n, _ := m["name"].(string)
		if n == "" {
			continue
		}
		gc.Available = append(gc.Available, n)
		if d, _ := m["default"].(bool); d && gc.Default == "" {
			gc.Default = n
		}
	}
	return gc
}
