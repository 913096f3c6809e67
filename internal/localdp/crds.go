package localdp

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

//go:embed crds/*.yaml
var crdFiles embed.FS

// ApplicationGVR is the resource of the Applications the control plane
// serves (dpapi's names the others).
var ApplicationGVR = dpapi.ApplicationGVR

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
