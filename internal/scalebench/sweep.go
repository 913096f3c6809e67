package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/protocol"
)

// The shortcut sweep (-shortcut-sweep) measures what each of the provider's
// protocol shortcuts saves: the four phases of N Applications with every
// shortcut off, with each one alone, with all of them on, and then off and
// on once more, so that the difference between two runs of the same
// configuration gives the run-to-run noise each saving is judged against.

// sweepConfig is one configuration of the sweep: its name and the value of
// protocol.EnvVar that makes it.
type sweepConfig struct {
	Name string
	Env  string
	bin  *sweepBinary // -sweep-bins: the provider binary it runs (nil: the one built)
}

// sweepBinary is a provider binary of -sweep-bins installed for the CLI.
type sweepBinary struct {
	exe    string
	runner *tofuRunner
}

// binaryConfigs installs each binary of -sweep-bins (name=path) under its
// name and returns one configuration per binary, shortcuts on, in the order
// given (name a binary twice to run it twice).
func (b *bench) binaryConfigs() ([]sweepConfig, error) {
	var cs []sweepConfig
	for _, nb := range b.o.sweepBins {
		name, path, ok := strings.Cut(nb, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("-sweep-bins: %q is not name=path", nb)
		}
		dir := filepath.Join(b.work, "bin-"+name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("-sweep-bins: %w", err)
		}
		exe := filepath.Join(dir, providerBinaryName)
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			return nil, err
		}
		rc := filepath.Join(b.work, "bin-"+name+".tfrc")
		if err := os.WriteFile(rc, []byte(cliConfig(dir)), 0o644); err != nil {
			return nil, err
		}
		r := newTofuRunner(b.tofu.bin, rc)
		r.env = append(r.env, b.o.extraEnv...)
		cs = append(cs, sweepConfig{Name: name, bin: &sweepBinary{exe: exe, runner: r}})
	}
	return cs, nil
}

const (
	sweepOff = "all off"
	sweepOn  = "all on"
)

// sweepConfigs are the sweep's configurations in the order they run.
func sweepConfigs(names []string) []sweepConfig {
	cs := []sweepConfig{{Name: sweepOff, Env: "off"}}
	for _, n := range names {
		others := slices.DeleteFunc(slices.Clone(names), func(o string) bool { return o == n })
		cs = append(cs, sweepConfig{Name: n, Env: strings.Join(others, ",")})
	}
	return append(cs, sweepConfig{Name: sweepOn}, sweepConfig{Name: sweepOff, Env: "off"}, sweepConfig{Name: sweepOn})
}

// leaveOneOutConfigs are all on but one shortcut, each: run only when
// -sweep-only names them ("all on but <name>"), to tell what removing one
// costs when the others stay.
func leaveOneOutConfigs(names []string) []sweepConfig {
	var cs []sweepConfig
	for _, n := range names {
		cs = append(cs, sweepConfig{Name: sweepOn + " but " + n, Env: n})
	}
	return cs
}

// sweepPlan is the configurations a sweep runs: every configuration of
// sweepConfigs, or those only names, in the order only gives them, each
// name as often as only repeats it.
func sweepPlan(names, only []string) ([]sweepConfig, error) {
	all := sweepConfigs(names)
	if len(only) == 0 {
		return all, nil
	}
	known := map[string]sweepConfig{}
	for _, c := range append(all, leaveOneOutConfigs(names)...) {
		known[c.Name] = c
	}
	var out []sweepConfig
	for _, n := range only {
		c, ok := known[n]
		if !ok {
			return nil, fmt.Errorf("-sweep-only: no configuration %q", n)
		}
		out = append(out, c)
	}
	return out, nil
}

// sweepRun is one configuration's results, by phase.
type sweepRun struct {
	Config sweepConfig
	Phases map[string]*phaseResult
}

// measureSweep runs the four phases of n Applications (the create plan
// only with -sweep-create-only) once per sweep configuration, the
// provider's configuration only (no floors: the sweep compares the provider
// with itself).
func (b *bench) measureSweep(ctx context.Context, n int) []sweepRun {
	lay := layout{N: n, P: b.o.p, NS: b.o.ns}
	config := deckhouseConfig(lay.apps(), providerOptions{ConfigPath: b.cluster.KubeconfigPath()})
	plan, err := sweepPlan(protocol.Names(), b.o.sweepOnly)
	if len(b.o.sweepBins) > 0 {
		plan, err = b.binaryConfigs()
	}
	if err != nil {
		logf("error: %v", err)
		return nil
	}
	var runs []sweepRun
	for i, sc := range plan {
		if ctx.Err() != nil {
			break
		}
		runner, exe := *b.tofu, b.provider
		if sc.bin != nil {
			runner, exe = *sc.bin.runner, sc.bin.exe
		}
		runner.env = append(slices.Clone(runner.env), protocol.EnvVar+"="+sc.Env)
		c := &configRun{kind: "deckhouse", runner: &runner, exe: exe, provider: true, out: map[string]*phaseResult{}, config: config}
		c.dir = filepath.Join(b.work, fmt.Sprintf("n%d", n), fmt.Sprintf("sweep-%02d", i))
		c.failed = b.prepare(ctx, c)
		for _, sp := range b.phaseSpecs() {
			if b.o.sweepCreateOnly && sp.name != phasePlanCreate {
				continue
			}
			for j := 0; j < sp.runs; j++ {
				c.step(ctx, b, sp, j)
			}
			if res := c.out[sp.name]; res != nil {
				logf("N=%d shortcuts %s, %s: %s s, provider CPU %s s, max RSS %d MB%s", n, sc.Name, sp.name, seconds(res.Wall), seconds(res.CPU), res.MaxRSSKB/1024, errSuffix(res.Err))
			}
		}
		runs = append(runs, sweepRun{Config: sc, Phases: c.out})
	}
	return runs
}

// runSweep runs the sweep for each size and prints its tables.
func runSweep(ctx context.Context, o options, b *bench) int {
	var report strings.Builder
	fmt.Fprintf(&report, "Shortcut sweep with %s: P=%d package versions, %d namespaces, -parallelism=%d.\n\n", b.cliName, o.p, o.ns, o.parallelism)
	for _, n := range o.sizes {
		runs := b.measureSweep(ctx, n)
		if ctx.Err() != nil {
			logf("interrupted")
			return 2
		}
		report.WriteString(renderSweep(n, runs))
	}
	if !printReport(o, report.String()) {
		return 2
	}
	return 0
}

// sweepMeasure is one figure of a phase result.
type sweepMeasure struct {
	Name string
	Of   func(*phaseResult) time.Duration
}

var sweepMeasures = []sweepMeasure{
	{"provider CPU s", func(p *phaseResult) time.Duration { return p.CPU }},
	{"CLI + provider CPU s", func(p *phaseResult) time.Duration { return p.TofuCPU }},
	{"wall s", func(p *phaseResult) time.Duration { return p.Wall }},
}

// sweepStats are, per measure and phase, the mean of the all-off runs and
// the noise: the larger difference between the two runs of all off and of
// all on.
type sweepStats struct {
	Base  map[string]map[string]float64 // measure, phase → seconds
	Noise map[string]map[string]float64
}

func sweepStatistics(runs []sweepRun) sweepStats {
	st := sweepStats{Base: map[string]map[string]float64{}, Noise: map[string]map[string]float64{}}
	for _, m := range sweepMeasures {
		st.Base[m.Name], st.Noise[m.Name] = map[string]float64{}, map[string]float64{}
		for _, ph := range phases {
			off := sweepValues(runs, sweepOff, ph, m)
			on := sweepValues(runs, sweepOn, ph, m)
			st.Base[m.Name][ph] = mean(off)
			st.Noise[m.Name][ph] = math.Max(spread(off), spread(on))
		}
	}
	return st
}

// sweepValues are the seconds of measure m in phase ph of every successful
// run of the configuration named name.
func sweepValues(runs []sweepRun, name, ph string, m sweepMeasure) []float64 {
	var out []float64
	for _, r := range runs {
		if p := r.Phases[ph]; r.Config.Name == name && p != nil && p.Err == "" {
			out = append(out, m.Of(p).Seconds())
		}
	}
	return out
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return slices.Max(xs) - slices.Min(xs)
}

// renderSweep is one table per measure: each configuration's seconds per
// phase and, for a single shortcut and all on, the saving against the mean
// of all off, marked * where it exceeds the noise; then the noise row and a
// verdict per shortcut.
func renderSweep(n int, runs []sweepRun) string {
	st := sweepStatistics(runs)
	bins := len(runs) > 0 && runs[0].Config.bin != nil
	var b strings.Builder
	if bins {
		fmt.Fprintf(&b, "Provider binaries, N=%d, shortcuts on, one run each (plans best of -repeat): seconds (provider max RSS).\n", n)
	} else {
		fmt.Fprintf(&b, "Shortcut sweep, N=%d: each configuration runs the phases once (plans best of -repeat); saving = mean of the all-off runs − this run; * where the saving exceeds the noise (the larger spread between the two runs of all off and of all on).\n", n)
	}
	for _, m := range sweepMeasures {
		fmt.Fprintf(&b, "\n| %s | %s |\n|---|%s\n", m.Name, strings.Join(phases, " | "), strings.Repeat("---|", len(phases)))
		for _, r := range runs {
			cells := make([]string, len(phases))
			for i, ph := range phases {
				cells[i] = sweepCell(r, ph, m, st)
				if p := r.Phases[ph]; r.Config.bin != nil && p != nil && p.Err == "" {
					cells[i] = fmt.Sprintf("%s (%d MB)", seconds(m.Of(p)), p.MaxRSSKB/1024)
				}
			}
			fmt.Fprintf(&b, "| %s | %s |\n", r.Config.Name, strings.Join(cells, " | "))
		}
		if bins {
			continue
		}
		cells := make([]string, len(phases))
		for i, ph := range phases {
			cells[i] = fmt.Sprintf("±%.2f", st.Noise[m.Name][ph])
		}
		fmt.Fprintf(&b, "| noise | %s |\n", strings.Join(cells, " | "))
	}
	if bins {
		return b.String()
	}
	b.WriteString(renderVerdicts(runs, st))
	b.WriteString(renderLeaveOneOut(runs))
	return b.String()
}

// renderVerdicts says, per shortcut measured alone, where its saving
// exceeds the noise.
func renderVerdicts(runs []sweepRun, st sweepStats) string {
	var b strings.Builder
	b.WriteString("\nVerdicts (a shortcut pays when its saving exceeds the noise in some phase and measure):\n\n")
	for _, name := range protocol.Names() {
		var pays []string
		for _, r := range runs {
			if r.Config.Name != name {
				continue
			}
			for _, m := range sweepMeasures {
				for _, ph := range phases {
					if s, ok := sweepSaving(r, ph, m, st); ok && s > st.Noise[m.Name][ph] {
						pays = append(pays, fmt.Sprintf("%s %s −%.2f", ph, m.Name, s))
					}
				}
			}
		}
		if len(pays) == 0 {
			fmt.Fprintf(&b, "- %s: within the noise\n", name)
			continue
		}
		fmt.Fprintf(&b, "- %s: pays (%s)\n", name, strings.Join(pays, "; "))
	}
	return b.String()
}

// sweepSaving is the saving of run r in phase ph against the all-off mean.
func sweepSaving(r sweepRun, ph string, m sweepMeasure, st sweepStats) (float64, bool) {
	p := r.Phases[ph]
	base := st.Base[m.Name][ph]
	if p == nil || p.Err != "" || math.IsNaN(base) {
		return 0, false
	}
	return base - m.Of(p).Seconds(), true
}

func sweepCell(r sweepRun, ph string, m sweepMeasure, st sweepStats) string {
	p := r.Phases[ph]
	switch {
	case p == nil:
		return "–"
	case p.Err != "":
		return "failed"
	}
	cell := seconds(m.Of(p))
	if r.Config.Name == sweepOff {
		return cell
	}
	if s, ok := sweepSaving(r, ph, m, st); ok {
		mark := ""
		if s > st.Noise[m.Name][ph] {
			mark = "*"
		}
		cell += fmt.Sprintf(" (%+.2f%s)", -s, mark)
	}
	return cell
}

// renderLeaveOneOut is, when the runs hold "all on but <name>"
// configurations, what removing each costs: the mean of its runs less the
// mean of the all-on runs per phase and measure, against the noise (the
// larger spread of either's runs); "" when there are none.
func renderLeaveOneOut(runs []sweepRun) string {
	var b strings.Builder
	for _, name := range protocol.Names() {
		cfg := sweepOn + " but " + name
		var cells []string
		for _, m := range sweepMeasures {
			for _, ph := range phases {
				without, on := sweepValues(runs, cfg, ph, m), sweepValues(runs, sweepOn, ph, m)
				if len(without) == 0 || len(on) == 0 {
					continue
				}
				cost, noise := mean(without)-mean(on), math.Max(spread(without), spread(on))
				mark := ""
				if cost > noise {
					mark = "*"
				}
				cells = append(cells, fmt.Sprintf("%s %s %+.2f%s (±%.2f)", ph, m.Name, cost, mark, noise))
			}
		}
		if len(cells) > 0 {
			fmt.Fprintf(&b, "- without %s (%d runs against %d all on): %s\n", name, countRuns(runs, cfg), countRuns(runs, sweepOn), strings.Join(cells, "; "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nWhat removing one shortcut costs (mean of all on but it − mean of all on; * above the noise):\n\n" + b.String()
}

// countRuns counts the runs of the configuration named name.
func countRuns(runs []sweepRun, name string) int {
	n := 0
	for _, r := range runs {
		if r.Config.Name == name {
			n++
		}
	}
	return n
}
