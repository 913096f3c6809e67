package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestRSSWatcher_MeasuresAProcessRunningTheExecutable(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	// A private copy, so only the process started here runs this executable.
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "bench-sleep")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	w := newRSSWatcher(exe, 5*time.Millisecond)
	w.Start()
	cmd := exec.Command(exe, "0.3")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	kb, procs := w.Stop()
	if procs != 1 || kb <= 0 {
		t.Errorf("peak %d kB over %d processes; want > 0 over 1", kb, procs)
	}
}

func TestPeakRSS_TakesTheLargerOfVmHWMAndVmRSS(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(p, []byte("Name:\tx\nVmHWM:\t  5120 kB\nVmRSS:\t  4096 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := peakRSSKB(p); got != 5120 {
		t.Errorf("got %d, want 5120", got)
	}
	if got := peakRSSKB(filepath.Join(t.TempDir(), "missing")); got != 0 {
		t.Errorf("missing file: got %d, want 0", got)
	}
}

func TestCPUTicks_ReadsUserPlusSystemTime(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "stat")
	line := "42 (terraform-provider (x)) S 1 42 42 0 -1 4194304 100 0 0 0 7 3 0 0 20 0 1 0 100 1000 10\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cpuTicks(p); got != 10 {
		t.Errorf("got %d ticks, want 10", got)
	}
}
