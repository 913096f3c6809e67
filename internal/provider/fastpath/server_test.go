package fastpath

import (
	"slices"
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
		value   string
		enabled bool
		off     []string
	}{
		{value: "", enabled: true},
		{value: "off", enabled: false},
		{value: "FALSE", enabled: false},
		{value: "read", enabled: true, off: []string{shortcutRead}},
		{value: "validate, plan-create", enabled: true, off: []string{shortcutValidate, shortcutPlanCreate}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(EnvVar, tt.value)
			if Enabled() != tt.enabled {
				t.Fatalf("Enabled() = %v, want %v", Enabled(), tt.enabled)
			}
			off := disabled()
			for _, name := range tt.off {
				if !off[name] {
					t.Errorf("%s not turned off by %q", name, tt.value)
				}
			}
			for _, name := range []string{shortcutValidate, shortcutRead, shortcutPlanUnchanged, shortcutPlanCreate, shortcutUpgrade} {
				if off[name] && !slices.Contains(tt.off, name) {
					t.Errorf("%s turned off by %q", name, tt.value)
				}
			}
		})
	}
}
