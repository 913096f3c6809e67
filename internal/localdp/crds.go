package localdp

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

//go:embed crds/*.yaml
var crdFiles embed.FS

// API groups and resources of the objects the control plane serves.
var (
	ApplicationGVR               = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "applications"}
	ApplicationPackageVersionGVR = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "applicationpackageversions"}
	ApplicationPackageGVR        = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "applicationpackages"}
	PackageRepositoryGVR         = schema.GroupVersionResource{Group: "deckhouse.io", Version: "v1alpha1", Resource: "packagerepositories"}
	AvailableClusterResourceGVR  = schema.GroupVersionResource{Group: "multitenancy.deckhouse.io", Version: "v1alpha1", Resource: "availableclusterresources"}
)

// CRDs returns the custom resource definitions the control plane installs,
// decoded from the YAML files embedded in the package, sorted by name.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	names, err := fs.Glob(crdFiles, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(names))
	for _, name := range names {
		data, err := crdFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("decode %s: %w", name, err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// CRDManifests returns the embedded CRD YAML files by file name, for users
// who want to install the same definitions into another cluster.
func CRDManifests() (map[string][]byte, error) {
	names, err := fs.Glob(crdFiles, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(names))
	for _, name := range names {
		data, err := crdFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out[name[len("crds/"):]] = data
	}
	return out, nil
}
