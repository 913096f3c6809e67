package localdp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Environment variables that locate the tool binaries.
const (
	// EnvToolsBin names the folder holding tofu, kube-apiserver and etcd.
	EnvToolsBin = "DECKHOUSE_TOOLS_BIN"
	// EnvToolsCache names the tools cache folder; the binaries are in its bin/.
	EnvToolsCache = "DECKHOUSE_TOOLS_CACHE"
)

// ControllerUserAgent is the User-Agent of every request the stand-in
// controller makes, so audit-log readers can tell its requests apart.
const ControllerUserAgent = "deckhouse-local-controller"

// ErrBinariesMissing is wrapped by the error Start returns when kube-apiserver
// or etcd is not in the binary folder.
var ErrBinariesMissing = errors.New("kube-apiserver or etcd binary missing")

// Options configure Start.
type Options struct {
	// Dir receives the kubeconfig (Dir/kubeconfig) and the audit policy.
	// Empty: a temporary folder, removed by Stop.
	Dir string
	// BinDir holds kube-apiserver and etcd. Empty: $DECKHOUSE_TOOLS_BIN, else
	// $DECKHOUSE_TOOLS_CACHE/bin, else $HOME/.cache/terraform-provider-deckhouse/bin.
	BinDir string
	// AuditLogPath, when set, makes kube-apiserver write a Metadata-level
	// audit event (JSON lines) for every request to this file, when the
	// request completes.
	AuditLogPath string
	// NoController skips the stand-in DP controller.
	NoController bool
	// Logf receives controller progress lines (never settings values); nil: silent.
	Logf func(format string, args ...any)
}

// ControlPlane is a running etcd + kube-apiserver with the DP CRDs installed
// and, unless disabled, the stand-in DP controller.
type ControlPlane struct {
	env            *envtest.Environment
	cfg            *rest.Config
	dyn            dynamic.Interface
	dir            string
	removeDir      bool
	kubeconfigPath string

	// api guards the kube-apiserver process: pids, and the process that
	// StartAPIServer starts in place of envtest's.
	api struct {
		sync.Mutex
		pids   []int    // kube-apiserver and etcd
		pid    int      // the running kube-apiserver; 0 while stopped
		args   []string // its command line, the one every restart runs again
		cmd    *exec.Cmd
		done   chan struct{} // closed when cmd has exited
		closed bool          // Stop has begun: no more starts
	}

	ctrl       *controller
	ctrlCancel context.CancelFunc
	ctrlDone   chan struct{}

	stopOnce sync.Once
	stopErr  error
	stopped  chan struct{}
}

// ResolveBinDir returns the folder Start looks in for kube-apiserver and etcd
// when Options.BinDir is dir.
func ResolveBinDir(dir string) string {
	if dir != "" {
		return dir
	}
	if v := os.Getenv(EnvToolsBin); v != "" {
		return v
	}
	if v := os.Getenv(EnvToolsCache); v != "" {
		return filepath.Join(v, "bin")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "terraform-provider-deckhouse", "bin")
}

// CheckBinaries reports, as an error wrapping ErrBinariesMissing, which of
// kube-apiserver and etcd is missing from binDir (resolved as by ResolveBinDir).
func CheckBinaries(binDir string) error {
	binDir = ResolveBinDir(binDir)
	var missing []string
	for _, name := range []string{"kube-apiserver", "etcd"} {
		fi, err := os.Stat(filepath.Join(binDir, name))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %v not found in %s: run make tools (or set %s)", ErrBinariesMissing, missing, binDir, EnvToolsBin)
	}
	return nil
}

// startTimeout bounds the start of each of etcd and kube-apiserver.
const startTimeout = 60 * time.Second

// auditPolicy records every request at the Metadata level, once, when it
// completes (or panics): the other stages would double the audit work the
// API server does for each request while measurements run.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
  - level: Metadata
`

// Start starts etcd and kube-apiserver, installs the CRDs, waits until they
// are established, writes an admin kubeconfig and starts the stand-in
// controller. The control plane stops on Stop or when ctx is cancelled.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	binDir := ResolveBinDir(opts.BinDir)
	if err := CheckBinaries(binDir); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	crds, err := CRDs()
	if err != nil {
		return nil, err
	}

	cp := &ControlPlane{stopped: make(chan struct{})}
	if opts.Dir == "" {
		d, err := os.MkdirTemp("", "deckhouse-local-")
		if err != nil {
			return nil, err
		}
		cp.dir, cp.removeDir = d, true
	} else {
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(opts.Dir)
		if err != nil {
			return nil, err
		}
		cp.dir = abs
	}

	env := &envtest.Environment{
		BinaryAssetsDirectory:    binDir,
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    false,
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(binDir, "etcd")}
	api := env.ControlPlane.GetAPIServer()
	api.Path = filepath.Join(binDir, "kube-apiserver")
	if opts.AuditLogPath != "" {
		policy := filepath.Join(cp.dir, "audit-policy.yaml")
		logPath, err := filepath.Abs(opts.AuditLogPath)
		if err == nil {
			err = os.WriteFile(policy, []byte(auditPolicy), 0o644)
		}
		if err == nil {
			err = os.MkdirAll(filepath.Dir(logPath), 0o755)
		}
		if err != nil {
			cp.cleanupDir()
			return nil, err
		}
		api.Configure().
			Set("audit-policy-file", policy).
			Set("audit-log-path", logPath).
			Set("audit-log-format", "json").
			Set("audit-log-mode", "blocking")
	}
	cp.env = env

	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop() // stops whatever part of the control plane did start
		cp.cleanupDir()
		return nil, fmt.Errorf("start control plane: %w", err)
	}
	// Tell this control plane's processes from any other one's in the same
	// process by their own data and certificate folders.
	var markers []string
	if env.ControlPlane.Etcd.DataDir != "" {
		markers = append(markers, "="+env.ControlPlane.Etcd.DataDir+"\x00")
	}
	if api.CertDir != "" {
		markers = append(markers, "="+api.CertDir+"\x00")
	}
	if len(markers) == 2 {
		cp.api.pids = childPIDsWith(markers, "kube-apiserver", "etcd")
		cp.api.pid = pidNamed(cp.api.pids, "kube-apiserver")
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 1000, 2000
	cp.cfg = cfg

	fail := func(err error) (*ControlPlane, error) {
		_ = cp.Stop()
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	cp.dyn, err = dynamic.NewForConfig(cfg)
	if err != nil {
		return fail(err)
	}
	cp.kubeconfigPath = filepath.Join(cp.dir, "kubeconfig")
	if err := writeFileAtomic(cp.kubeconfigPath, env.KubeConfig, 0o600); err != nil {
		return fail(fmt.Errorf("write kubeconfig: %w", err))
	}

	if !opts.NoController {
		ccfg := rest.CopyConfig(cfg)
		ccfg.UserAgent = ControllerUserAgent
		ctrl, err := newController(ccfg, opts)
		if err != nil {
			return fail(err)
		}
		cctx, cancel := context.WithCancel(context.Background())
		cp.ctrl, cp.ctrlCancel, cp.ctrlDone = ctrl, cancel, make(chan struct{})
		if err := ctrl.start(cctx, cp.ctrlDone); err != nil {
			return fail(fmt.Errorf("start controller: %w", err))
		}
	}

	go func() {
		select {
		case <-ctx.Done():
			_ = cp.Stop()
		case <-cp.stopped:
		}
	}()
	return cp, nil
}

// Hold makes the stand-in controller leave the Applications of namespace
// ns alone, as a DP that lags behind: no finalizer, no labels and no
// verdict, so a write stays unapplied and a delete of an Application that
// carries the finalizer waits. Release ends it and reconciles them all.
// Both do nothing without the controller.
func (cp *ControlPlane) Hold(ns string) {
	if cp.ctrl != nil {
		cp.ctrl.hold(ns, true)
	}
}

// Release ends a Hold of namespace ns.
func (cp *ControlPlane) Release(ns string) {
	if cp.ctrl != nil {
		cp.ctrl.hold(ns, false)
	}
}

// KubeconfigPath is the path of the admin kubeconfig file.
func (cp *ControlPlane) KubeconfigPath() string { return cp.kubeconfigPath }

// RESTConfig returns a copy of the admin REST config (QPS 1000, burst 2000).
func (cp *ControlPlane) RESTConfig() *rest.Config { return rest.CopyConfig(cp.cfg) }

// Dynamic returns a dynamic client with admin rights.
func (cp *ControlPlane) Dynamic() dynamic.Interface { return cp.dyn }

// PIDs are the process ids of kube-apiserver and etcd (Linux; empty
// elsewhere). While StopAPIServer is in force only etcd's is listed; after
// StartAPIServer, the new kube-apiserver's.
func (cp *ControlPlane) PIDs() []int {
	cp.api.Lock()
	defer cp.api.Unlock()
	return append([]int(nil), cp.api.pids...)
}

// Stop stops the controller, kube-apiserver and etcd. It is idempotent and
// safe for concurrent use; every call returns the first call's result.
func (cp *ControlPlane) Stop() error {
	cp.stopOnce.Do(func() {
		defer close(cp.stopped)
		if cp.ctrlCancel != nil {
			cp.ctrlCancel()
			select {
			case <-cp.ctrlDone:
			case <-time.After(10 * time.Second):
			}
		}
		apiErr := cp.stopOwnAPIServer()
		cp.stopErr = errors.Join(apiErr, cp.env.Stop())
		cp.cleanupDir()
	})
	return cp.stopErr
}

// Done is closed once Stop has finished.
func (cp *ControlPlane) Done() <-chan struct{} { return cp.stopped }

func (cp *ControlPlane) cleanupDir() {
	if cp.removeDir && cp.dir != "" {
		_ = os.RemoveAll(cp.dir)
	}
}

func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// APIServerStopGrace is the time RestartAPIServer gives kube-apiserver to
// end after SIGTERM before it sends SIGKILL. kube-apiserver stops listening
// at once but holds its graceful shutdown (up to a minute) while clients
// keep watch streams open; those streams are cut when the process dies.
const APIServerStopGrace = 3 * time.Second

// StopAPIServer stops the kube-apiserver process and returns once it has
// exited: SIGTERM, then SIGKILL after grace (0: SIGKILL at once, a crash).
// New connections are refused from the SIGTERM on; requests in flight and
// watch streams end with the process. etcd, the stand-in controller and
// every client keep running; their requests fail until StartAPIServer.
// Stopping a stopped API server does nothing. Linux only (it finds the
// process and its command line in /proc).
func (cp *ControlPlane) StopAPIServer(ctx context.Context, grace time.Duration) error {
	cp.api.Lock()
	defer cp.api.Unlock()
	return cp.stopAPIServerLocked(ctx, grace)
}

func (cp *ControlPlane) stopAPIServerLocked(ctx context.Context, grace time.Duration) error {
	pid := cp.api.pid
	if pid == 0 {
		return nil
	}
	if cp.api.args == nil {
		args, err := processArgs(pid)
		if err != nil {
			return fmt.Errorf("read the kube-apiserver command line: %w", err)
		}
		cp.api.args = args
	}
	gone := processGone // envtest's process: gone once envtest has reaped it
	if cp.api.cmd != nil {
		done := cp.api.done
		gone = func(int) bool {
			select {
			case <-done:
				return true
			default:
				return false
			}
		}
	}
	if err := terminate(ctx, pid, grace, gone); err != nil {
		return err
	}
	cp.api.pid, cp.api.cmd, cp.api.done = 0, nil, nil
	cp.api.pids = slices.DeleteFunc(cp.api.pids, func(p int) bool { return p == pid })
	return nil
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, with the
// very command line it ran with (same address, certificates, client CA and
// etcd), and returns once it answers /readyz and serves the DP API group, so
// every kubeconfig and client of the control plane works again unchanged.
// It waits at most a minute (and ctx). Starting a running API
// server does nothing.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	cp.api.Lock()
	defer cp.api.Unlock()
	if cp.api.pid != 0 {
		return nil
	}
	if cp.api.args == nil {
		return errors.New("start kube-apiserver: its command line is unknown (the process was not found at Start)")
	}
	if cp.api.closed {
		return errors.New("start kube-apiserver: the control plane is stopped")
	}
	cmd := exec.Command(cp.api.args[0], cp.api.args[1:]...) // the command line envtest started
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}   // as envtest starts it: out of the test's process group
	stderr := &tailBuffer{max: 8 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start kube-apiserver: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	cp.api.pid, cp.api.cmd, cp.api.done = cmd.Process.Pid, cmd, done
	cp.api.pids = append(cp.api.pids, cmd.Process.Pid)

	if err := cp.waitAPIServerReady(ctx, done); err != nil {
		_ = cp.stopAPIServerLocked(context.Background(), 0)
		return fmt.Errorf("start kube-apiserver: %w; its last output: %s", err, lastLines(stderr.String(), 5))
	}
	return nil
}

// RestartAPIServer stops kube-apiserver (SIGTERM, SIGKILL after
// APIServerStopGrace), leaves it down for down, and starts it again on the
// same address with the same credentials: StopAPIServer, then
// StartAPIServer. The API refuses connections for up to APIServerStopGrace
// plus down plus the start-up time (a few seconds). When ctx ends while the
// server is down it stays down; StartAPIServer brings it back.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context, down time.Duration) error {
	if err := cp.StopAPIServer(ctx, APIServerStopGrace); err != nil {
		return err
	}
	t := time.NewTimer(down)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return cp.StartAPIServer(ctx)
}

// waitAPIServerReady polls /readyz and then the DP API group's discovery
// until both answer 200.
func (cp *ControlPlane) waitAPIServerReady(ctx context.Context, exited <-chan struct{}) error {
	client, err := rest.HTTPClientFor(cp.cfg)
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	paths := []string{"/readyz", "/apis/" + ApplicationGVR.Group + "/" + ApplicationGVR.Version}
	var last string
	for len(paths) > 0 {
		status, err := getStatus(ctx, client, strings.TrimSuffix(cp.cfg.Host, "/")+paths[0])
		if err == nil && status == http.StatusOK {
			paths = paths[1:]
			continue
		}
		if err != nil {
			last = err.Error()
		} else {
			last = fmt.Sprintf("%s answered %d", paths[0], status)
		}
		select {
		case <-exited:
			return errors.New("the process exited")
		case <-ctx.Done():
			return fmt.Errorf("not ready (%s): %w", last, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func getStatus(ctx context.Context, client *http.Client, url string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// stopOwnAPIServer stops a kube-apiserver that StartAPIServer started
// (envtest stops its own) and refuses further starts.
func (cp *ControlPlane) stopOwnAPIServer() error {
	cp.api.Lock()
	defer cp.api.Unlock()
	cp.api.closed = true
	if cp.api.cmd == nil {
		return nil
	}
	return cp.stopAPIServerLocked(context.Background(), 30*time.Second)
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
