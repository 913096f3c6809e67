// Package internal_test checks the import rules of CONTRIBUTING.md: who
// may import whom among the project's packages.
package internal_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/deckhouse/terraform-provider-deckhouse"

// TestLayers_ImportRules lists every package's imports (tests excluded) and
// checks them against the layering: the engine is a pure library, dpapi
// knows DP's names, dpclient is client-go only, and the Terraform adapter in
// internal/provider, which reaches the cluster through dpclient and imports
// no client-go itself, is imported by main alone; the fake API server of the
// unit tests is imported by tests alone.
func TestLayers_ImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type rule struct {
		pkg     string   // package path under the module ("" = the module root)
		mayNot  []string // import prefixes it must not use
		onlyOwn []string // project packages it may import (nil: any)
	}
	terraform := []string{"github.com/hashicorp/terraform-plugin-", "github.com/hashicorp/terraform-plugin-framework"}
	kube := []string{"k8s.io/client-go", "k8s.io/apimachinery", "sigs.k8s.io/controller-runtime"}
	// What the resource and data sources build on (functions: the first three).
	adapterBase := []string{"internal/engine", "internal/provider/convert", "internal/provider/diagnostics",
		"internal/dpapi", "internal/dpclient", "internal/provider/providerdata", "internal/provider/appstatus"}
	rules := []rule{
		{pkg: "internal/engine", mayNot: append(append([]string{}, terraform...), kube...), onlyOwn: []string{}},
		{pkg: "internal/dpapi", mayNot: append(append([]string{}, terraform...), "k8s.io/client-go"), onlyOwn: []string{"internal/engine"}},
		{pkg: "internal/dpclient", mayNot: terraform, onlyOwn: []string{"internal/engine", "internal/dpapi"}},
		// The verdict on the API server: the standard library only, and
		// nothing of the client it guards.
		{pkg: "internal/dpclient/outage", mayNot: append(append([]string{}, terraform...), kube...), onlyOwn: []string{}},
		// The JSON data model: the standard library only (checked below),
		// and any package may import it.
		{pkg: "internal/jsonvalue", onlyOwn: []string{}},
		{pkg: "internal/faultproxy", mayNot: append(append([]string{}, terraform...), kube...), onlyOwn: []string{}},
		{pkg: "internal/localdp", mayNot: terraform, onlyOwn: []string{"internal/engine", "internal/dpapi"}},
		// The Terraform adapter talks to the cluster through dpclient only.
		{pkg: "internal/provider", mayNot: []string{"k8s.io/client-go"}},
		// Inside it, one layer per package: the protocol server knows no
		// resource type and nothing of the project; conversion and diagnostics know
		// the engine only; the resource, the data sources and the functions
		// do not import each other.
		{pkg: "internal/provider/protocol", mayNot: kube, onlyOwn: []string{}},
		{pkg: "internal/provider/convert", mayNot: kube, onlyOwn: []string{"internal/engine"}},
		{pkg: "internal/provider/diagnostics", mayNot: kube, onlyOwn: []string{"internal/engine"}},
		{pkg: "internal/provider/providerdata", onlyOwn: []string{"internal/dpclient"}},
		{pkg: "internal/provider/appstatus", onlyOwn: []string{"internal/dpclient"}},
		{pkg: "internal/provider/functions", mayNot: kube, onlyOwn: adapterBase[:3]},
		{pkg: "internal/provider/application", onlyOwn: adapterBase},
		{pkg: "internal/provider/datasources", onlyOwn: adapterBase},
		// The ephemeral resources open data sources: they build on them and
		// on what those build on.
		{pkg: "internal/provider/ephemerals", onlyOwn: append(append([]string{}, adapterBase...), "internal/provider/datasources")},
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[strings.TrimPrefix(strings.TrimPrefix(f[0], module), "/")] = f[1:]
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if imp == module+"/internal/provider" && pkg != "" {
				t.Errorf("%s imports internal/provider: only main may", pkg)
			}
			if imp == module+"/internal/dpclient/dpfake" {
				t.Errorf("%s imports internal/dpclient/dpfake: only tests may", pkg)
			}
		}
		if pkg == "internal/jsonvalue" {
			for _, imp := range imps {
				if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
					t.Errorf("%s imports %s: only the standard library may be", pkg, imp)
				}
			}
		}
		for _, r := range rules {
			if pkg != r.pkg && !strings.HasPrefix(pkg, r.pkg+"/") {
				continue
			}
			for _, imp := range imps {
				for _, bad := range r.mayNot {
					if strings.HasPrefix(imp, bad) {
						t.Errorf("%s imports %s", pkg, imp)
					}
				}
				if own, ok := strings.CutPrefix(imp, module+"/"); ok && r.onlyOwn != nil && !strings.HasPrefix(own, r.pkg) {
					allowed := own == "internal/jsonvalue"
					for _, o := range r.onlyOwn {
						allowed = allowed || own == o
					}
					if !allowed {
						t.Errorf("%s imports %s (allowed: %v)", pkg, own, r.onlyOwn)
					}
				}
			}
		}
	}
	if len(imports) < 5 {
		t.Fatalf("go list found only %d packages", len(imports))
	}
}
