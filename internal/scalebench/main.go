package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

type options struct {
	cli         string // -cli: tofu, terraform, or a path
	states      int    // -states: parallel states (0: none)
	sizes       []int
	p, ns       int
	parallelism int
	repeat      int
	out         string
	workDir     string
	keep        bool
	extraEnv    []string
	// heldReads adds a plan with every read held after each apply;
	// requestTimeout is the provider's request_timeout (0: its default).
	heldReads      bool
	requestTimeout time.Duration
	// sweep runs the shortcut sweep (sweep.go) instead of the floors;
	// sweepOnly, when not empty, names the configurations it runs.
	sweep     bool
	sweepOnly []string
	// sweepBins, when not empty, makes the sweep compare provider binaries
	// (name=path), each with every shortcut on, instead of the shortcuts.
	sweepBins []string
	// sweepCreateOnly runs only the create plan in each sweep
	// configuration (nothing is applied).
	sweepCreateOnly bool
}

// commaList is the non-empty items of a comma-separated flag value, trimmed.
func commaList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, part := range commaList(s) {
		n, err := strconv.Atoi(part)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-n: %q is not a positive number", part)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("-n: no sizes given")
	}
	return out, nil
}

func main() {
	var o options
	sizes := flag.String("n", "20,100,300", "comma-separated numbers of applications")
	flag.StringVar(&o.cli, "cli", cliTofu, "the CLI: tofu (the pinned OpenTofu), terraform (from the PATH), or a path to either")
	flag.IntVar(&o.states, "states", 0, "also run K states of N/K applications in parallel against the same API server (0: no)")
	flag.IntVar(&o.p, "p", 10, "number of package versions")
	flag.IntVar(&o.ns, "ns", 5, "number of namespaces")
	flag.IntVar(&o.parallelism, "parallelism", 10, "tofu -parallelism")
	flag.IntVar(&o.repeat, "repeat", 3, "runs of each plan phase (the fastest is reported)")
	flag.StringVar(&o.out, "out", "", "also write the table to this file")
	flag.StringVar(&o.workDir, "workdir", "", "working folder (default: a temporary folder)")
	flag.BoolVar(&o.keep, "keep", false, "keep the working folder (configurations, tofu logs, audit log)")
	flag.BoolVar(&o.heldReads, "held-reads", false, "after each apply, plan again through a fault proxy that holds every read (an API server that answers nothing)")
	flag.DurationVar(&o.requestTimeout, "request-timeout", 0, "provider request_timeout (0: the provider's default)")
	flag.BoolVar(&o.sweep, "shortcut-sweep", false, "measure the provider with every shortcut off, each alone and all on, instead of the floors (sweep.go)")
	only := flag.String("sweep-only", "", "comma-separated names of the sweep's configurations to run (\"all off\", a shortcut's name, \"all on\"; default: every one, with all off and all on twice)")
	flag.BoolVar(&o.sweepCreateOnly, "sweep-create-only", false, "the sweep runs only the create plan of each configuration (nothing applied: many repeats in little time)")
	bins := flag.String("sweep-bins", "", "comma-separated name=path of provider binaries the sweep compares, each with the shortcuts on (e.g. builds of two commits)")
	env := flag.String("env", "", "extra KEY=VALUE,... for tofu and the provider (experiments, e.g. TF_LOG_SDK=OFF)")
	flag.Parse()
	o.extraEnv, o.sweepOnly, o.sweepBins = commaList(*env), commaList(*only), commaList(*bins)
	o.sweep = o.sweep || len(o.sweepBins) > 0

	var err error
	if o.sizes, err = parseSizes(*sizes); err == nil {
		switch {
		case o.p <= 0 || o.ns <= 0 || o.parallelism <= 0 || o.repeat <= 0:
			err = errors.New("-p, -ns, -parallelism and -repeat must be positive")
		case o.states < 0 || o.states == 1:
			err = errors.New("-states must be 0 or at least 2")
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, o)
	stop()
	os.Exit(code)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "==> [scalebench] "+format+"\n", args...)
}

// run performs the benchmark and returns the process exit code: 0 when every
// target passed, 1 when one failed, 2 when the benchmark could not run.
func run(ctx context.Context, o options) int {
	work := o.workDir
	if work == "" {
		d, err := os.MkdirTemp("", "scalebench-")
		if err != nil {
			logf("error: %v", err)
			return 2
		}
		work = d
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		logf("error: %v", err)
		return 2
	}
	if abs, err := filepath.Abs(work); err == nil {
		work = abs
	}
	defer func() {
		if o.keep {
			logf("working folder kept: %s", work)
			return
		}
		_ = os.RemoveAll(work)
	}()

	b, err := setup(ctx, o, work)
	if b != nil {
		defer b.close()
	}
	if err != nil {
		logf("error: %v", err)
		return 2
	}

	if o.sweep {
		return runSweep(ctx, o, b)
	}
	var results []*sizeResult
	for _, n := range o.sizes {
		if ctx.Err() != nil {
			break
		}
		r := b.measureSize(ctx, n)
		if o.states > 0 && ctx.Err() == nil {
			r.States = b.measureStates(ctx, n, o.states)
		}
		results = append(results, r)
	}
	if ctx.Err() != nil {
		logf("interrupted")
		return 2
	}

	checks := evaluateTargets(results, o.p, o.ns, defaultTargets)
	checks = append(checks, evaluateStates(results)...)
	if !printReport(o, formatReport(o, b.cliName, results, checks)) {
		return 2
	}
	for _, c := range checks {
		if !c.Pass {
			return 1
		}
	}
	return 0
}

// printReport prints the report and writes it to -out too; false when that
// write failed.
func printReport(o options, report string) bool {
	fmt.Print(report)
	if o.out == "" {
		return true
	}
	if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
		logf("error: write %s: %v", o.out, err)
		return false
	}
	return true
}

// formatReport is the table, the verdicts and the per-phase request details.
func formatReport(o options, cli string, results []*sizeResult, checks []check) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scale benchmark with %s: P=%d package versions, %d namespaces, -parallelism=%d, plans best of %d; floors: the same configuration served by a provider that does no work (no-op), and terraform_data with the same settings.\n",
		cli, o.p, o.ns, o.parallelism, o.repeat)
	if len(o.extraEnv) > 0 {
		fmt.Fprintf(&b, "Extra environment: %s.\n", strings.Join(o.extraEnv, " "))
	}
	b.WriteString("\n")
	b.WriteString(renderTable(results))
	b.WriteString("\nThe CLI's work: CPU of the CLI with its providers (process accounting) and the providers' own (sampled from /proc), the CLI's own the difference; the API-work floor does the apply's and the destroy's requests and waits with client-go at the same parallelism, no CLI, no provider; state size after the apply.\n\n")
	b.WriteString(renderWork(results))
	b.WriteString(renderHeld(results, o.requestTimeout))
	if st := renderStates(results); st != "" {
		b.WriteString("\n" + st)
	}
	b.WriteString("\nTargets:\n\n")
	for _, c := range checks {
		b.WriteString("- " + c.String() + "\n")
	}
	b.WriteString("\nProvider requests per phase (from the audit log):\n\n")
	b.WriteString(renderDetails(results))
	return b.String()
}

// bench holds what every size shares.
type bench struct {
	o        options
	work     string
	provider string      // provider binary
	noop     string      // the no-op provider binary
	cliName  string      // the CLI's name and version
	tofu     *tofuRunner // runs the CLI with the provider
	noopTofu *tofuRunner // runs the CLI with the no-op provider
	cluster  *localdp.ControlPlane
	audit    string
	apiFloor *apiFloor // the API-work floor of apply and destroy
}

func setup(ctx context.Context, o options, work string) (*bench, error) {
	b := &bench{o: o, work: work, audit: filepath.Join(work, "audit.log")}
	root, err := moduleRoot(ctx)
	if err != nil {
		return b, err
	}
	tofuBin, err := findCLI(o.cli)
	if err != nil {
		return b, err
	}
	b.cliName = cliVersion(ctx, tofuBin)
	logf("CLI: %s (%s)", b.cliName, tofuBin)
	logf("building the provider and the no-op provider")
	if b.provider, b.tofu, err = b.installProvider(ctx, root, tofuBin, "provider", "."); err != nil {
		return b, err
	}
	if b.noop, b.noopTofu, err = b.installProvider(ctx, root, tofuBin, "noop", "./internal/scalebench/noop"); err != nil {
		return b, err
	}

	logf("starting the local control plane (audit log %s)", b.audit)
	b.cluster, err = startCluster(ctx, filepath.Join(work, "cluster"), b.audit,
		filepath.Join(root, "internal", "scalebench", "testdata", "package"), layout{P: o.p, NS: o.ns})
	if err != nil {
		return b, err
	}
	b.apiFloor, err = newAPIFloor(b.cluster.RESTConfig(), o.parallelism)
	return b, err
}

// installProvider builds pkg as the provider binary in the folder name of
// the working folder and returns it with a CLI runner whose configuration
// overrides the provider's address with it.
func (b *bench) installProvider(ctx context.Context, root, cli, name, pkg string) (string, *tofuRunner, error) {
	binDir := filepath.Join(b.work, name)
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", nil, err
	}
	bin, err := buildBinary(ctx, root, binDir, pkg)
	if err != nil {
		return "", nil, err
	}
	rc := filepath.Join(b.work, name+".tfrc")
	if err := os.WriteFile(rc, []byte(cliConfig(binDir)), 0o644); err != nil {
		return "", nil, err
	}
	r := newTofuRunner(cli, rc)
	r.env = append(r.env, b.o.extraEnv...)
	return bin, r, nil
}

func (b *bench) close() {
	if b.cluster != nil {
		logf("stopping the local control plane")
		if err := b.cluster.Stop(); err != nil {
			logf("stop control plane: %v", err)
		}
	}
}

// measureSize runs the three configurations for n applications, phase by
// phase, alternating the provider's, the no-op provider's and the floor's
// runs so that all see the same machine load.
func (b *bench) measureSize(ctx context.Context, n int) *sizeResult {
	lay := layout{N: n, P: b.o.p, NS: b.o.ns}
	apps := lay.apps()
	r := &sizeResult{N: n, Deckhouse: map[string]*phaseResult{}, Noop: map[string]*phaseResult{}, Floor: map[string]*phaseResult{},
		API: map[string]*phaseResult{}}

	config := deckhouseConfig(apps, providerOptions{ConfigPath: b.cluster.KubeconfigPath()})
	dk := &configRun{kind: "deckhouse", runner: b.tofu, exe: b.provider, provider: true, out: r.Deckhouse, config: config}
	nf := &configRun{kind: "noop", runner: b.noopTofu, exe: b.noop, noInit: true, out: r.Noop, config: config}
	fl := &configRun{kind: "floor", runner: b.tofu, out: r.Floor, config: floorConfig(apps)}
	runs := []*configRun{dk, nf, fl}
	for _, c := range runs {
		c.dir = filepath.Join(b.work, fmt.Sprintf("n%d", n), c.kind)
		c.failed = b.prepare(ctx, c)
	}

	for _, sp := range b.phaseSpecs() {
		if sp.name == phaseDestroy && b.o.heldReads && dk.failed == "" && ctx.Err() == nil {
			r.HeldReads = b.measureHeldReads(ctx, dk, apps)
			logf("N=%d deckhouse %s: %s s%s", n, phasePlanHeld, seconds(r.HeldReads.Wall), errSuffix(r.HeldReads.Err))
		}
		for i := 0; i < sp.runs; i++ {
			for _, c := range runs {
				if ctx.Err() != nil {
					c.failed = "interrupted"
				}
				c.step(ctx, b, sp, i)
			}
			if (sp.name == phaseApply || sp.name == phaseDestroy) && ctx.Err() == nil {
				r.API[sp.name] = b.measureAPIFloor(ctx, sp.name, apps)
			}
		}
		for _, c := range runs {
			if res := c.out[sp.name]; res != nil {
				logf("N=%d %s %s: %s s%s", n, c.kind, sp.name, seconds(res.Wall), errSuffix(res.Err))
			}
		}
		if res := r.API[sp.name]; res != nil {
			logf("N=%d API-work floor %s: %s s%s", n, sp.name, seconds(res.Wall), errSuffix(res.Err))
		}
	}
	if ctx.Err() == nil {
		left, err := countApplications(ctx, b.cluster)
		r.Leftovers = left
		if err != nil {
			r.CheckErr = err.Error()
		}
	}
	return r
}

// phaseSpecs are the four phases in their order.
func (b *bench) phaseSpecs() []phaseSpec {
	par := fmt.Sprintf("-parallelism=%d", b.o.parallelism)
	return []phaseSpec{
		{phasePlanCreate, []string{"plan", "-input=false", "-no-color", "-detailed-exitcode", par}, 2, b.o.repeat},
		{phaseApply, []string{"apply", "-auto-approve", "-input=false", "-no-color", par}, 0, 1},
		{phasePlanRefresh, []string{"plan", "-input=false", "-no-color", "-detailed-exitcode", par}, 0, b.o.repeat},
		{phaseDestroy, []string{"destroy", "-auto-approve", "-input=false", "-no-color", par}, 0, 1},
	}
}

// phaseSpec says how to run one phase and which exit code means success.
type phaseSpec struct {
	name string
	args []string
	want int // expected exit code (plan uses -detailed-exitcode: 2 changes, 0 none)
	runs int
}

// configRun is one configuration's working folder and results.
type configRun struct {
	kind     string
	config   string
	runner   *tofuRunner
	exe      string // the provider binary whose RSS and CPU are measured ("": none)
	provider bool   // count the provider's API requests
	noInit   bool   // a provider under dev_overrides: no init
	dir, log string
	out      map[string]*phaseResult
	failed   string // set when the configuration cannot be run any further
}

// prepare writes the configuration into c.dir, whose cli.log is the
// configuration's log from now on. The floor (terraform_data only, built
// into the CLI) gets an init, which works offline. The providers'
// configurations get none: a provider under dev_overrides needs no init, and
// init would try to reach the registry for it and fail offline.
func (b *bench) prepare(ctx context.Context, c *configRun) string {
	c.log = filepath.Join(c.dir, "cli.log")
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err.Error()
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(c.config), 0o644); err != nil {
		return err.Error()
	}
	if c.provider || c.noInit {
		return ""
	}
	if code, _, _, err := c.runner.runCPU(ctx, c.dir, c.log, "init", "-input=false", "-no-color"); err != nil || code != 0 {
		return fmt.Sprintf("init exit %d %v: %s", code, err, tailFile(c.log, 15))
	}
	return ""
}

// step runs one run of a phase and keeps the fastest successful run. After a
// failed apply, destroy still runs so the cluster is cleaned up.
func (c *configRun) step(ctx context.Context, b *bench, sp phaseSpec, _ int) {
	best := c.out[sp.name]
	if c.failed != "" && !(sp.name == phaseDestroy && c.failed != "interrupted" && ctx.Err() == nil) {
		if best == nil {
			c.out[sp.name] = &phaseResult{Err: c.failed}
		}
		return
	}
	if best != nil && best.Err != "" {
		return // an earlier run of this phase failed
	}
	res := b.measurePhase(ctx, c, sp)
	if best == nil || (res.Err == "" && res.Wall < best.Wall) || res.Err != "" {
		if best != nil {
			res.Runs = best.Runs
		}
		best = res
	}
	best.Runs = append(best.Runs, res.Wall)
	c.out[sp.name] = best
	if res.Err != "" && c.failed == "" {
		c.failed = sp.name + " failed"
	}
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	first, _, _ := strings.Cut(e, "\n")
	return " (" + first + ")"
}

func (b *bench) measurePhase(ctx context.Context, c *configRun, sp phaseSpec) *phaseResult {
	res := &phaseResult{}
	logPath := c.log
	var w *rssWatcher
	if c.exe != "" {
		w = newRSSWatcher(c.exe, rssPoll)
		w.Start()
	}
	from := time.Now()
	code, wall, cpu, err := c.runner.runCPU(ctx, c.dir, logPath, sp.args...)
	to := time.Now()
	res.TofuCPU = cpu
	if w != nil {
		res.MaxRSSKB, res.Procs = w.Stop()
		res.CPU = w.CPU()
	}
	res.Wall = wall
	if sp.name == phaseApply {
		if fi, err := os.Stat(filepath.Join(c.dir, "terraform.tfstate")); err == nil {
			res.StateBytes = fi.Size()
		}
	}
	switch {
	case err != nil:
		res.Err = err.Error()
	case code != sp.want:
		what := fmt.Sprintf("exit code %d, want %d", code, sp.want)
		if sp.want == 0 && code == 2 {
			what = "plan shows changes (exit code 2), want none"
		}
		res.Err = what + "\n" + tailFile(logPath, 25)
	}
	if c.provider {
		if err := b.countRequests(res, from, to); err != nil && res.Err == "" {
			res.Err = "read audit log: " + err.Error()
		}
	}
	return res
}

// measureAPIFloor runs the API-work floor's apply or destroy of apps. A
// destroy runs after a failed apply too, to clean up what it wrote.
func (b *bench) measureAPIFloor(ctx context.Context, phase string, apps []app) *phaseResult {
	res := &phaseResult{}
	from := time.Now()
	wall, err := b.apiFloor.run(ctx, phase, apps)
	to := time.Now()
	res.Wall, res.Runs = wall, []time.Duration{wall}
	if err != nil {
		res.Err = err.Error()
	}
	time.Sleep(300 * time.Millisecond)
	c, err := countAuditFile(b.audit, auditFilter{From: from, To: to, UserAgentPrefix: apiFloorUserAgent})
	res.Provider = c
	if err != nil && res.Err == "" {
		res.Err = "read audit log: " + err.Error()
	}
	return res
}

// countRequests fills res with the provider's and the other clients'
// requests between from and to.
func (b *bench) countRequests(res *phaseResult, from, to time.Time) error {
	// Give the audit backend a moment to write the last events.
	time.Sleep(300 * time.Millisecond)
	var e1, e2 error
	res.Provider, e1 = countAuditFile(b.audit, auditFilter{From: from, To: to, UserAgentPrefix: providerBinaryName})
	res.Others, e2 = countAuditFile(b.audit, auditFilter{From: from, To: to, UserAgentPrefix: providerBinaryName, Exclude: true})
	return errors.Join(e1, e2)
}
