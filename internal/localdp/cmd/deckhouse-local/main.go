package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

const usage = `usage:
  deckhouse-local start --dir <dir> [--config seed.yaml] [--audit-log path] [--bin-dir dir] [-v]
  deckhouse-local stop --dir <dir>
  deckhouse-local status --dir <dir>
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "start":
		err = cmdStart(args[1:], stdout, stderr)
	case "stop":
		err = cmdStop(args[1:], stdout)
	case "status":
		var running bool
		running, err = cmdStatus(args[1:], stdout)
		if err == nil && !running {
			return 1
		}
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "deckhouse-local %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

type paths struct{ dir, pid, children, kubeconfig string }

func dirFlag(fs *flag.FlagSet) *string {
	return fs.String("dir", "", "state folder (kubeconfig, pid)")
}

func resolve(dir string) (paths, error) {
	if dir == "" {
		return paths{}, errors.New("--dir is required")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return paths{}, err
	}
	return paths{
		dir:        abs,
		pid:        filepath.Join(abs, "pid"),
		children:   filepath.Join(abs, "children"),
		kubeconfig: filepath.Join(abs, "kubeconfig"),
	}, nil
}

func cmdStart(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := dirFlag(fs)
	config := fs.String("config", "", "seed file (YAML: namespaces, packages, resources)")
	audit := fs.String("audit-log", "", "write a Metadata-level audit log of every API request to this file")
	binDir := fs.String("bin-dir", "", "folder holding kube-apiserver and etcd (default $"+localdp.EnvToolsBin+")")
	verbose := fs.Bool("v", false, "log what the stand-in controller does")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := resolve(*dir)
	if err != nil {
		return err
	}
	if pid, ok := readPID(p.pid); ok && localdp.ProcessAlive(pid, "") {
		return fmt.Errorf("already running in %s (pid %d)", p.dir, pid)
	}
	var cfg localdp.Config
	if *config != "" {
		if cfg, err = localdp.LoadConfig(*config); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{p.pid, p.children, p.kubeconfig} {
		_ = os.Remove(f)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	opts := localdp.Options{Dir: p.dir, AuditLogPath: *audit, BinDir: *binDir}
	if *verbose {
		opts.Logf = func(format string, a ...any) {
			fmt.Fprintf(stderr, time.Now().Format("15:04:05.000 ")+format+"\n", a...)
		}
	}
	started := time.Now()
	cp, err := localdp.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer func() {
		_ = cp.Stop()
		for _, f := range []string{p.pid, p.children, p.kubeconfig} {
			_ = os.Remove(f)
		}
	}()
	var kids []string
	for _, pid := range cp.PIDs() {
		kids = append(kids, strconv.Itoa(pid))
	}
	if err := os.WriteFile(p.children, []byte(strings.Join(kids, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	if err := cp.Seed(ctx, cfg); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if err := os.WriteFile(p.pid+".tmp", []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(p.pid+".tmp", p.pid); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deckhouse-local: control plane ready in %.1fs (%d package versions, %d resources seeded)\n",
		time.Since(started).Seconds(), len(cfg.Packages), len(cfg.Resources))
	fmt.Fprintf(stdout, "kubeconfig: %s\n", cp.KubeconfigPath())
	fmt.Fprintf(stdout, "stop with: deckhouse-local stop --dir %s (or Ctrl-C)\n", p.dir)

	select {
	case <-ctx.Done():
	case <-cp.Done():
	}
	err = cp.Stop()
	fmt.Fprintln(stdout, "deckhouse-local: stopped")
	return err
}

func cmdStop(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	dir := dirFlag(fs)
	timeout := fs.Duration("timeout", 60*time.Second, "how long to wait before killing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := resolve(*dir)
	if err != nil {
		return err
	}
	pid, ok := readPID(p.pid)
	if ok && localdp.ProcessAlive(pid, "") {
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			return fmt.Errorf("signal pid %d: %w", pid, err)
		}
		if !waitGone(pid, *timeout) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			waitGone(pid, 5*time.Second)
		}
	}
	// Whatever the control plane process left behind (it was killed, say).
	if data, err := os.ReadFile(p.children); err == nil {
		for _, f := range strings.Fields(string(data)) {
			kid, err := strconv.Atoi(f)
			if err != nil || !(localdp.ProcessAlive(kid, "kube-apiserver") || localdp.ProcessAlive(kid, "etcd")) {
				continue
			}
			_ = syscall.Kill(kid, syscall.SIGTERM)
			if !waitGone(kid, 20*time.Second) {
				_ = syscall.Kill(kid, syscall.SIGKILL)
			}
		}
	}
	for _, f := range []string{p.pid, p.children, p.kubeconfig} {
		_ = os.Remove(f)
	}
	if ok {
		fmt.Fprintf(stdout, "deckhouse-local: stopped (pid %d)\n", pid)
	} else {
		fmt.Fprintln(stdout, "deckhouse-local: not running")
	}
	return nil
}

func cmdStatus(args []string, stdout io.Writer) (bool, error) {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	dir := dirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return false, err
	}
	p, err := resolve(*dir)
	if err != nil {
		return false, err
	}
	pid, ok := readPID(p.pid)
	if !ok || !localdp.ProcessAlive(pid, "") {
		fmt.Fprintln(stdout, "deckhouse-local: not running")
		return false, nil
	}
	fmt.Fprintf(stdout, "deckhouse-local: running (pid %d)\nkubeconfig: %s\n", pid, p.kubeconfig)
	return true, nil
}

func readPID(path string) (int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid, err == nil && pid > 0
}

func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !localdp.ProcessAlive(pid, "") {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return !localdp.ProcessAlive(pid, "")
}
