package localdp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// childPIDsWith lists the direct children of this process whose executable
// base name is one of names, read from /proc (empty where /proc is absent),
// and whose command line contains one of markers (any process when markers
// is empty).
func childPIDsWith(markers []string, names ...string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, comm, ok := procStat(pid)
		if !ok || ppid != self {
			continue
		}
		if slices.ContainsFunc(names, func(n string) bool { return comm == n || processName(pid) == n }) && cmdlineHasAny(pid, markers) {
			out = append(out, pid)
		}
	}
	return out
}

// procStat reads the parent pid and the command name of pid.
func procStat(pid int) (ppid int, comm string, ok bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, "", false
	}
	s := string(data)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return 0, "", false
	}
	comm = s[open+1 : closing]
	fields := strings.Fields(s[closing+1:])
	if len(fields) < 2 {
		return 0, "", false
	}
	if fields[0] == "Z" { // zombie: already exited
		return 0, "", false
	}
	ppid, err = strconv.Atoi(fields[1])
	return ppid, comm, err == nil
}

// processName is the base name of the executable of pid ("" when unknown).
func processName(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(data) == 0 {
		return ""
	}
	arg0, _, _ := strings.Cut(string(data), "\x00")
	return filepath.Base(arg0)
}

// ProcessAlive reports whether pid is a live (non-zombie) process whose
// executable base name is name ("" matches any name).
func ProcessAlive(pid int, name string) bool {
	if pid <= 0 {
		return false
	}
	_, comm, ok := procStat(pid)
	if !ok {
		return false
	}
	return name == "" || comm == name || processName(pid) == name
}

func cmdlineHasAny(pid int, markers []string) bool {
	if len(markers) == 0 {
		return true
	}
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return false
	}
	cmdline := string(data)
	return slices.ContainsFunc(markers, func(m string) bool { return m != "" && strings.Contains(cmdline, m) })
}

// processArgs is the command line of pid, read from /proc.
func processArgs(pid int) ([]string, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil, err
	}
	args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	if len(args) == 0 || args[0] == "" {
		return nil, fmt.Errorf("process %d has no command line", pid)
	}
	return args, nil
}

// pidNamed returns the first of pids whose executable base name is name, 0
// when none is.
func pidNamed(pids []int, name string) int {
	for _, pid := range pids {
		if ProcessAlive(pid, name) {
			return pid
		}
	}
	return 0
}

// processGone reports whether pid no longer exists, not even as a zombie
// waiting to be reaped.
func processGone(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return errors.Is(err, fs.ErrNotExist)
}

// terminate sends SIGTERM to pid (SIGKILL when grace is 0), SIGKILL once
// grace has passed, and waits until gone(pid) holds, bounded by ctx.
func terminate(ctx context.Context, pid int, grace time.Duration, gone func(int) bool) error {
	sig := syscall.SIGTERM
	if grace <= 0 {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop process %d: %w", pid, err)
	}
	killAt := time.Now().Add(grace)
	killed := sig == syscall.SIGKILL
	for !gone(pid) {
		if !killed && time.Now().After(killAt) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for process %d to stop: %w", pid, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
