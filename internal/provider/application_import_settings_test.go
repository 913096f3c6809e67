package provider

import (
	"strings"
	"testing"
)

// TestAccApplication_ImportSettingsReadPlansNoChangeForEqualSettings: an
// Application made outside Terraform (as the DP web interface would) is
// imported with an import block. By default its settings stay out of the
// state (any value may be a secret) and the first plan shows the
// configuration's settings as an update; with import_settings = "read" the
// state holds the cluster's settings and a configuration equal to them
// plans no change, while a differing one plans the update of that key.
func TestAccApplication_ImportSettingsReadPlansNoChangeForEqualSettings(t *testing.T) {
	e := newAccEnv(t)
	e.seedApplication("app", e.pkg, map[string]any{"replicas": int64(2), "domain": "web.example.com"})
	importBlock := "\nimport {\n  to = deckhouse_application.test\n  id = \"" + e.namespace + "/app\"\n}\n"
	config := func(providerArgs, settings string) string {
		cfg := e.config("  settings = " + settings + "\n  package_repository_name = \"main\"")
		return strings.Replace(cfg, "config_path", providerArgs+"config_path", 1) + importBlock
	}
	const equal = `{ replicas = 2, domain = "web.example.com" }`

	steps := []struct {
		name, providerArgs, settings, want string
	}{
		{"default: the settings stay out of the state, the first plan updates them", "", equal,
			"1 to import, 0 to add, 1 to change"},
		{"read: equal settings plan no change", "import_settings = \"read\"\n  ", equal,
			"1 to import, 0 to add, 0 to change"},
		{"read: a differing key plans its update", "import_settings = \"read\"\n  ", `{ replicas = 3, domain = "web.example.com" }`,
			"1 to import, 0 to add, 1 to change"},
	}
	for _, s := range steps {
		c := newTofuCLI(t, false)
		c.write(config(s.providerArgs, s.settings))
		res := c.run(nil, "plan", "-no-color")
		if res.Code != 0 || !outputHas(res, s.want) {
			t.Fatalf("%s: exit %d, want %q:\n%s", s.name, res.Code, s.want, res.Output())
		}
	}

	// After the apply of an equal configuration with "read", the next plan is
	// clean and the Application is this configuration's.
	c := newTofuCLI(t, false)
	withImport := config("import_settings = \"read\"\n  ", equal)
	c.write(withImport)
	c.must("apply", "-auto-approve")
	c.write(strings.TrimSuffix(withImport, importBlock))
	c.planClean()
}
