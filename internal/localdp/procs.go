package localdp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// childPIDs lists the direct children of this process whose executable base
// name is one of names, read from /proc (empty where /proc is absent).
func childPIDs(names ...string) []int { return childPIDsWith(nil, names...) }

// childPIDsWith is childPIDs restricted to processes whose command line
// contains one of markers (any process when markers is empty).
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
		for _, n := range names {
			if (comm == n || processName(pid) == n) && cmdlineHasAny(pid, markers) {
				out = append(out, pid)
				break
			}
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
	for _, m := range markers {
		if m != "" && strings.Contains(cmdline, m) {
			return true
		}
	}
	return false
}
