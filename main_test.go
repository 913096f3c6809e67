package main

import (
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
