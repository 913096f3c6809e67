package localdp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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
	// audit event (JSON lines) for every request to this file.
	AuditLogPath string
	// NoController skips the stand-in DP controller.
	NoController bool
	// Workers is the number of concurrent reconcilers (default 8).
	Workers int
	// StartTimeout bounds the start of each of etcd and kube-apiserver
	// (default 60s).
	StartTimeout time.Duration
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
	pids           []int

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

// auditPolicy records every request at the Metadata level.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
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

	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    binDir,
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    false,
		ControlPlaneStartTimeout: timeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(binDir, "etcd")}
	api := env.ControlPlane.GetAPIServer()
	api.Path = filepath.Join(binDir, "kube-apiserver")
	if opts.AuditLogPath != "" {
		policy := filepath.Join(cp.dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
			cp.cleanupDir()
			return nil, err
		}
		logPath, err := filepath.Abs(opts.AuditLogPath)
		if err != nil {
			cp.cleanupDir()
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
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
		cp.pids = childPIDsWith(markers, "kube-apiserver", "etcd")
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

// KubeconfigPath is the path of the admin kubeconfig file.
func (cp *ControlPlane) KubeconfigPath() string { return cp.kubeconfigPath }

// Kubeconfig returns the admin kubeconfig contents.
func (cp *ControlPlane) Kubeconfig() []byte { return cp.env.KubeConfig }

// RESTConfig returns a copy of the admin REST config (QPS 1000, burst 2000).
func (cp *ControlPlane) RESTConfig() *rest.Config { return rest.CopyConfig(cp.cfg) }

// Dynamic returns a dynamic client with admin rights.
func (cp *ControlPlane) Dynamic() dynamic.Interface { return cp.dyn }

// Dir is the folder holding the kubeconfig.
func (cp *ControlPlane) Dir() string { return cp.dir }

// PIDs are the process ids of kube-apiserver and etcd (Linux; empty elsewhere).
func (cp *ControlPlane) PIDs() []int { return append([]int(nil), cp.pids...) }

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
		cp.stopErr = cp.env.Stop()
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
