package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun_CommandsOnAnEmptyDir(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"status-not-running", []string{"status", "--dir", dir}, 1, "not running"},
		{"stop-not-running", []string{"stop", "--dir", dir}, 0, "not running"},
		{"start-requires-dir", []string{"start"}, 1, "--dir is required"},
		{"unknown-command", []string{"restart"}, 2, "unknown command"},
		{"no-command", nil, 2, "usage:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, &out, &errOut)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stdout %q, stderr %q)", code, tt.wantCode, out.String(), errOut.String())
			}
			if !strings.Contains(out.String()+errOut.String(), tt.wantOut) {
				t.Errorf("output %q lacks %q", out.String()+errOut.String(), tt.wantOut)
			}
		})
	}
}

func TestStatus_StalePIDFileIsNotRunning(t *testing.T) {
	dir := t.TempDir()
	// A pid that cannot be a live process.
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"status", "--dir", dir}, &out, &out); code != 1 || !strings.Contains(out.String(), "not running") {
		t.Fatalf("code %d, output %q", code, out.String())
	}
}
