package main

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestServedVersion_CommitIsBuildMetadata(t *testing.T) {
	t.Parallel()
	vcs := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}}}
	tests := []struct {
		name, version, commit string
		info                  *debug.BuildInfo
		want                  string
	}{
		{"release", "1.2.0", "3f2a9c1", nil, "1.2.0+3f2a9c1"},
		{"full commit shortened", "1.2.0", "3f2a9c1d0e5b7a8c9d0e1f2a3b4c5d6e7f8a9b0c", nil, "1.2.0+3f2a9c1"},
		{"no commit, no build info", "dev", "", nil, "dev"},
		{"no commit: the VCS revision", "dev", "", vcs, "dev+0123456"},
		{"ldflags commit wins over the VCS revision", "dev", "abcdef0", vcs, "dev+abcdef0"},
		{"make without git", "dev", "none", nil, "dev"},
		{"version that already has build metadata", "1.2.0+local", "3f2a9c1", nil, "1.2.0+local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := servedVersion(tt.version, tt.commit, tt.info); got != tt.want {
				t.Errorf("servedVersion(%q, %q) = %q, want %q", tt.version, tt.commit, got, tt.want)
			}
		})
	}
}

// The SDK's and the provider's own log lines are turned off only when no
// variable asks for logs: the CLI would discard them.
func TestQuietLogs_OffOnlyWhenNobodyAskedForLogs(t *testing.T) {
	quieted := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", providerLogEnv}
	tests := []struct {
		name string
		set  map[string]string
		want string // the value of each quieted variable afterwards
	}{
		{name: "no logs asked for", want: "OFF"},
		{name: "TF_LOG", set: map[string]string{"TF_LOG": "TRACE"}, want: ""},
		{name: "TF_LOG_PROVIDER", set: map[string]string{"TF_LOG_PROVIDER": "DEBUG"}, want: ""},
		{name: "the provider's own", set: map[string]string{providerLogEnv: "TRACE"}, want: ""},
		{name: "TF_ACC_LOG_PATH", set: map[string]string{"TF_ACC_LOG_PATH": "/tmp/acc.log"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range append(append([]string{}, logEnv...), quieted...) {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
			for k, v := range tt.set {
				t.Setenv(k, v)
			}
			quietLogs()
			for _, k := range quieted {
				if _, asked := tt.set[k]; asked {
					continue
				}
				if got := os.Getenv(k); got != tt.want {
					t.Errorf("%s = %q, want %q", k, got, tt.want)
				}
			}
		})
	}
}
