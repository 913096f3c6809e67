package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rssWatcher polls /proc for processes running one executable and records the
// highest resident set size any single one of them reached (the larger of
// VmRSS and VmHWM seen), so a process that lives only for a fraction of a
// phase is still measured.
type rssWatcher struct {
	exe      string
	interval time.Duration
	procRoot string

	mu      sync.Mutex
	maxKB   int64
	seen    map[int]bool      // pids found running exe
	cpu     map[int]int64     // last utime+stime seen per pid, clock ticks
	other   map[int]time.Time // pids found running something else, since when
	stop    chan struct{}
	stopped chan struct{}
}

// rssPoll is the interval of the /proc polling for the provider's RSS.
const rssPoll = 20 * time.Millisecond

// otherSettle is how long a process must have run another executable before
// the watcher stops checking it (it may be between fork and exec).
const otherSettle = 500 * time.Millisecond

func newRSSWatcher(exe string, interval time.Duration) *rssWatcher {
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	return &rssWatcher{exe: exe, interval: interval, procRoot: "/proc"}
}

// Start begins polling; Stop ends it and returns the peak in kB and the number
// of distinct processes seen.
func (w *rssWatcher) Start() {
	w.maxKB = 0
	w.seen = map[int]bool{}
	w.cpu = map[int]int64{}
	w.other = map[int]time.Time{}
	w.stop = make(chan struct{})
	w.stopped = make(chan struct{})
	go func() {
		defer close(w.stopped)
		t := time.NewTicker(w.interval)
		defer t.Stop()
		for {
			w.poll()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends polling (after one last poll) and returns the peak RSS in kB and the
// number of distinct provider processes observed.
func (w *rssWatcher) Stop() (maxKB int64, processes int) {
	close(w.stop)
	<-w.stopped
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.maxKB, len(w.seen)
}

// CPU is the CPU time (user + system) the provider processes used, as last
// seen by a poll (a process's last few milliseconds may be missed). Call after Stop.
func (w *rssWatcher) CPU() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ticks int64
	for _, t := range w.cpu {
		ticks += t
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times (100 on Linux).
const clockTicks = 100

// cpuTicks reads utime + stime from /proc/<pid>/stat (0 when unreadable).
func cpuTicks(statPath string) int64 {
	b, err := os.ReadFile(statPath)
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command: state(0) ppid(1) ... utime(11) stime(12).
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return u + s
}

func (w *rssWatcher) poll() {
	ents, err := os.ReadDir(w.procRoot)
	if err != nil {
		return
	}
	live := make(map[int]bool, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		live[pid] = true
		w.mu.Lock()
		known := w.seen[pid]
		since, isOther := w.other[pid]
		w.mu.Unlock()
		// A process that ran something else for a while will not exec the
		// provider now; a young one may still be between fork and exec.
		if isOther && time.Since(since) > otherSettle {
			continue
		}
		dir := filepath.Join(w.procRoot, e.Name())
		if !known {
			if !w.runsExe(dir) {
				if !isOther {
					w.mu.Lock()
					w.other[pid] = time.Now()
					w.mu.Unlock()
				}
				continue
			}
		}
		kb := peakRSSKB(filepath.Join(dir, "status"))
		ticks := cpuTicks(filepath.Join(dir, "stat"))
		w.mu.Lock()
		if kb > 0 {
			w.seen[pid] = true
		}
		if ticks > w.cpu[pid] {
			w.cpu[pid] = ticks
		}
		w.maxKB = max(w.maxKB, kb)
		w.mu.Unlock()
	}
	// Forget pids that are gone so a reused pid is examined again.
	w.mu.Lock()
	for pid := range w.other {
		if !live[pid] {
			delete(w.other, pid)
		}
	}
	w.mu.Unlock()
}

// runsExe reports whether the process in dir runs w.exe: by its exe link, or,
// when that cannot be read, by the first word of its command line.
func (w *rssWatcher) runsExe(dir string) bool {
	if target, err := os.Readlink(filepath.Join(dir, "exe")); err == nil {
		return strings.TrimSuffix(target, " (deleted)") == w.exe
	}
	cmd, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil || len(cmd) == 0 {
		return false
	}
	first, _, _ := bytes.Cut(cmd, []byte{0})
	return string(first) == w.exe
}

// peakRSSKB reads VmHWM and VmRSS from a /proc/<pid>/status file and returns the
// larger, in kB; 0 when the file cannot be read (the process has exited).
func peakRSSKB(statusPath string) int64 {
	f, err := os.Open(statusPath)
	if err != nil {
		return 0
	}
	defer f.Close()
	var best int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "VmHWM:") && !strings.HasPrefix(line, "VmRSS:") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		if v, err := strconv.ParseInt(fields[1], 10, 64); err == nil && v > best {
			best = v
		}
	}
	return best
}
