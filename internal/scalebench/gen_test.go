package main

import (
	"strings"
	"testing"
)

func TestLayout_SpreadsAppsOverEveryVersionAndNamespace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		l        layout
		versions int
		nss      int
	}{
		{"20 over 10 versions and 5 namespaces", layout{N: 20, P: 10, NS: 5}, 10, 5},
		{"300 over 10 versions and 5 namespaces", layout{N: 300, P: 10, NS: 5}, 10, 5},
		{"fewer apps than versions", layout{N: 3, P: 10, NS: 5}, 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vs, nss, names := map[string]bool{}, map[string]bool{}, map[string]bool{}
			for _, a := range tt.l.apps() {
				vs[a.Version], nss[a.Namespace] = true, true
				if len(a.Name) > 24 {
					t.Errorf("name %q longer than 24 characters", a.Name)
				}
				if names[a.Namespace+"/"+a.Name] {
					t.Errorf("duplicate application %s/%s", a.Namespace, a.Name)
				}
				names[a.Namespace+"/"+a.Name] = true
			}
			if len(vs) != tt.versions || len(nss) != tt.nss {
				t.Errorf("versions %d, namespaces %d; want %d, %d", len(vs), len(nss), tt.versions, tt.nss)
			}
		})
	}
}

func TestAppSettings_HaveAboutTenFieldsAndLeaveHalfTheGrantsToTheDefault(t *testing.T) {
	t.Parallel()
	withClass := 0
	for i := 0; i < 10; i++ {
		s := appSettings(i)
		leaves := countLeaves(s)
		if leaves < 9 || leaves > 13 {
			t.Errorf("app %d: %d leaf fields, want about 10", i, leaves)
		}
		if c, ok := s["storageClass"]; ok {
			withClass++
			found := false
			for _, a := range grantAvailable {
				found = found || a == c
			}
			if !found {
				t.Errorf("app %d: storageClass %v not in the catalog", i, c)
			}
		}
		if r, m := s["replicas"].(int), s["maxReplicas"].(int); r > m {
			t.Errorf("app %d: replicas %d > maxReplicas %d breaks the CEL rule", i, r, m)
		}
	}
	if withClass != 5 {
		t.Errorf("%d of 10 apps set storageClass, want 5", withClass)
	}
}

func countLeaves(v any) int {
	m, ok := v.(map[string]any)
	if !ok {
		return 1
	}
	n := 0
	for _, x := range m {
		n += countLeaves(x)
	}
	return n
}

func TestConfig_DeckhouseAndFloorHoldTheSameSettings(t *testing.T) {
	t.Parallel()
	apps := layout{N: 2, P: 2, NS: 2}.apps()
	dk := deckhouseConfig(apps, providerOptions{ConfigPath: "/tmp/kc"})
	fl := floorConfig(apps)
	for _, want := range []string{
		`source = "deckhouse/deckhouse"`,
		`config_path = "/tmp/kc"`,
		`resource "deckhouse_application" "app_0000" {`,
		`package_version         = "v1.1.0"`,
		`namespace               = "bench-2"`,
		`logLevel = "Info"`,
	} {
		if !strings.Contains(dk, want) {
			t.Errorf("deckhouse configuration lacks %q", want)
		}
	}
	if strings.Contains(fl, "deckhouse_application") || strings.Contains(fl, "provider") {
		t.Error("floor configuration must use no provider")
	}
	if got := strings.Count(fl, `resource "terraform_data"`); got != 2 {
		t.Errorf("floor has %d terraform_data resources, want 2", got)
	}
	// The settings block is rendered identically (indented one level deeper in the floor).
	for _, a := range apps {
		var b strings.Builder
		writeHCL(&b, a.Settings, 0)
		for _, line := range strings.Split(b.String(), "\n")[1:] {
			if !strings.Contains(dk, line) || !strings.Contains(fl, line) {
				t.Errorf("settings line %q missing from a configuration", line)
			}
		}
	}
}

func TestWriteHCL_RendersScalarsListsAndSortedObjects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"string quoted", "a\"b", `"a\"b"`},
		{"number", 3, "3"},
		{"float", 1.5, "1.5"},
		{"bool", true, "true"},
		{"null", nil, "null"},
		{"list", []any{"x", 1}, `["x", 1]`},
		{"object keys sorted", map[string]any{"b": 1, "a": 2}, "{\n  a = 2\n  b = 1\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			writeHCL(&b, tt.in, 0)
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestCLIConfig_OverridesBothRegistryAddresses(t *testing.T) {
	t.Parallel()
	c := cliConfig("/opt/p")
	for _, want := range []string{
		`"registry.opentofu.org/deckhouse/deckhouse" = "/opt/p"`,
		`"registry.terraform.io/deckhouse/deckhouse" = "/opt/p"`,
		"dev_overrides",
		"direct {}",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("CLI configuration lacks %q:\n%s", want, c)
		}
	}
}

func TestParseSizes_RejectsNonPositiveAndEmpty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"20,100,300", []int{20, 100, 300}, false},
		{" 20 , 5", []int{20, 5}, false},
		{"", nil, true},
		{"0", nil, true},
		{"x", nil, true},
	}
	for _, tt := range tests {
		got, err := parseSizes(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("%q: err %v", tt.in, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: got %v, want %v", tt.in, got, tt.want)
		}
	}
}

// The report names the CLI by the line of its version output that does,
// after any warning.
func TestVersionLine_SkipsWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct{ out, want string }{
		{"Warning: Unable to open CLI configuration file\n\nOpenTofu v1.12.6\non linux_amd64\n", "OpenTofu v1.12.6"},
		{"Terraform v1.11.4\non linux_amd64\n", "Terraform v1.11.4"},
		{"", "tofu (version unknown)"},
	}
	for _, tt := range tests {
		if got := versionLine(tt.out, "tofu"); got != tt.want {
			t.Errorf("versionLine(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}
