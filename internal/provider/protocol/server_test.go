package protocol

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestPrivateData_ReadsTheFrameworkEncoding(t *testing.T) {
	tests := []struct {
		name    string
		private string
		want    string
		ok      bool
	}{
		{name: "empty", private: "", want: "", ok: true},
		{name: "key present", private: `{"sensitive_paths":"W1siYSJdXQ=="}`, want: `[["a"]]`, ok: true},
		{name: "key absent", private: `{".frameworkKey":"e30="}`, want: "", ok: true},
		{name: "not JSON", private: `{`, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := privateData([]byte(tt.private))
			if ok != tt.ok || string(got["sensitive_paths"]) != tt.want {
				t.Fatalf("got %q, %v; want %q, %v", got["sensitive_paths"], ok, tt.want, tt.ok)
			}
		})
	}
}

// EnvVar lists the shortcuts to turn off by name; "off" turns them all off.
func TestEnvVar_TurnsShortcutsOff(t *testing.T) {
	tests := []struct {
		value string
		off   []string
	}{
		{value: ""},
		{value: "off", off: Names()},
		{value: "FALSE", off: Names()},
		{value: "read", off: []string{shortcutRead}},
		{value: "validate, plan-create", off: []string{shortcutValidate, shortcutPlanCreate}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(EnvVar, tt.value)
			off := disabled()
			for _, name := range tt.off {
				if !off[name] {
					t.Errorf("%s not turned off by %q", name, tt.value)
				}
			}
			for _, name := range Names() {
				if off[name] && !slices.Contains(tt.off, name) {
					t.Errorf("%s turned off by %q", name, tt.value)
				}
			}
		})
	}
}

// Names lists every shortcut a server turns off by name, and only those: the
// benchmark's sweep (internal/scalebench -shortcut-sweep) measures each one
// it lists.
func TestNames_ListEveryShortcutTurnedOffByName(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	re := regexp.MustCompile(`s\.off\[(shortcut\w+)\]`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			used[m[1]] = true
		}
	}
	byConst := map[string]string{"shortcutValidate": shortcutValidate, "shortcutRead": shortcutRead,
		"shortcutPlanUnchanged": shortcutPlanUnchanged, "shortcutPlanCreate": shortcutPlanCreate,
		"shortcutUpgrade": shortcutUpgrade}
	var want []string
	for c := range used {
		name, ok := byConst[c]
		if !ok {
			t.Fatalf("%s is turned off by name but missing from this test's table", c)
		}
		want = append(want, name)
	}
	got := Names()
	slices.Sort(want)
	got = slices.Sorted(slices.Values(got))
	if !slices.Equal(got, want) {
		t.Errorf("Names() = %v, the shortcuts turned off by name are %v", got, want)
	}
}
