package appstatus

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"sigs.k8s.io/yaml"
)

// The local control plane's Application CRD and SpecFields name the same
// fields of spec (besides settings), of the same shapes down to every
// nested field: a field added to one and not the other fails here by name.
func TestSpecFields_MatchTheLocalCRD(t *testing.T) {
	raw, err := os.ReadFile("../../localdp/crds/applications.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	versions, _ := dig(crd, "spec", "versions").([]any)
	if len(versions) == 0 {
		t.Fatal("the CRD has no versions")
	}
	for _, v := range versions {
		props, _ := dig(v, "schema", "openAPIV3Schema", "properties", "spec", "properties").(map[string]any)
		byJSON := map[string]SpecField{}
		for _, f := range SpecFields {
			byJSON[f.JSON] = f
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if _, ok := byJSON[name]; !ok && name != "settings" {
				t.Errorf("the CRD's spec.%s has no entry in appstatus.SpecFields (spec.go)", name)
			}
		}
		for _, f := range SpecFields {
			p, ok := props[f.JSON]
			if !ok {
				t.Errorf("appstatus.SpecFields names spec.%s (attribute %s), which the CRD (internal/localdp/crds/applications.yaml) lacks", f.JSON, f.Attr)
				continue
			}
			for _, m := range shapeMismatches("spec."+f.JSON, f.Type, p) {
				t.Error(m)
			}
		}
	}
}

// shapeMismatches names each place where the OpenAPI schema p of a CRD
// field does not have the shape of t.
func shapeMismatches(at string, t attr.Type, p any) []string {
	crdType, _ := dig(p, "type").(string)
	if dig(p, "x-kubernetes-int-or-string") == true {
		crdType = "string" // a quantity: the provider holds its text
	}
	switch t := t.(type) {
	case types.ObjectType:
		props, _ := dig(p, "properties").(map[string]any)
		var out []string
		for name, at2 := range t.AttrTypes {
			sub, ok := props[jsonName(name)]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s (attribute %s) is not in the CRD", at, jsonName(name), name))
				continue
			}
			out = append(out, shapeMismatches(at+"."+jsonName(name), at2, sub)...)
		}
		for name := range props {
			if _, ok := t.AttrTypes[snakeName(name)]; !ok {
				out = append(out, fmt.Sprintf("the CRD's %s.%s has no attribute in the type of appstatus.SpecFields", at, name))
			}
		}
		return out
	case types.ListType:
		return shapeMismatches(at+"[]", t.ElemType, dig(p, "items"))
	case types.MapType:
		return shapeMismatches(at+"{}", t.ElemType, dig(p, "additionalProperties"))
	}
	want := map[attr.Type]string{types.StringType: "string", types.Int64Type: "integer", types.BoolType: "boolean"}[t]
	if crdType != want {
		return []string{fmt.Sprintf("%s is %q in the CRD, %s in appstatus.SpecFields", at, crdType, t)}
	}
	return nil
}

// dig is the value at keys of nested maps, nil when absent.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// snakeName is the Terraform name of DP's JSON name.
func snakeName(s string) string {
	var out []rune
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			out = append(out, '_', r+'a'-'A')
			continue
		}
		out = append(out, r)
	}
	return string(out)
}
