package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// statesResult is K states of N/K Applications each, every phase run in
// all K at once against the one API server.
type statesResult struct {
	K      int
	Phases map[string]*phaseResult // wall: until the last state finished; requests: all K providers'
}

// splitApps deals apps into k states of (nearly) equal size, in order.
func splitApps(apps []app, k int) [][]app {
	out := make([][]app, k)
	for i, a := range apps {
		out[i*k/len(apps)] = append(out[i*k/len(apps)], a)
	}
	return out
}

// measureStates runs the four phases on k states of n/k Applications, each
// phase in all k states at once (one CLI process, with its providers, per
// state), and counts what the providers asked of the API server.
func (b *bench) measureStates(ctx context.Context, n, k int) *statesResult {
	res := &statesResult{K: k, Phases: map[string]*phaseResult{}}
	apps := layout{N: n, P: b.o.p, NS: b.o.ns}.apps()
	var runs []*configRun
	for i, group := range splitApps(apps, k) {
		c := &configRun{kind: fmt.Sprintf("state-%02d", i), runner: b.tofu, provider: true,
			config: deckhouseConfig(group, providerOptions{ConfigPath: b.cluster.KubeconfigPath()})}
		c.dir = filepath.Join(b.work, fmt.Sprintf("n%d", n), "states", c.kind)
		if c.failed = b.prepare(ctx, c); c.failed != "" {
			res.Phases[phasePlanCreate] = &phaseResult{Err: c.failed}
			return res
		}
		runs = append(runs, c)
	}
	failed := false
	for _, sp := range b.phaseSpecs() {
		if failed && sp.name != phaseDestroy {
			res.Phases[sp.name] = &phaseResult{Err: "an earlier phase failed"}
			continue
		}
		r := b.measureParallel(ctx, runs, sp)
		res.Phases[sp.name] = r
		failed = failed || r.Err != ""
		logf("N=%d in %d states %s: %s s%s", n, k, sp.name, seconds(r.Wall), errSuffix(r.Err))
	}
	return res
}

// measureParallel runs one phase in every state at once.
func (b *bench) measureParallel(ctx context.Context, runs []*configRun, sp phaseSpec) *phaseResult {
	res := &phaseResult{}
	w := newRSSWatcher(b.provider, rssPoll)
	w.Start()
	from := time.Now()
	errs := make([]error, len(runs))
	cpus := make([]time.Duration, len(runs))
	var wg sync.WaitGroup
	for i, c := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, cpu, err := c.runner.runCPU(ctx, c.dir, c.log, sp.args...)
			cpus[i] = cpu
			if err == nil && code != sp.want {
				err = fmt.Errorf("%s: exit code %d, want %d\n%s", c.kind, code, sp.want, tailFile(c.log, 15))
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	to := time.Now()
	res.Wall = to.Sub(from)
	res.Runs = []time.Duration{res.Wall}
	res.MaxRSSKB, res.Procs = w.Stop()
	res.CPU = w.CPU()
	for _, c := range cpus {
		res.TofuCPU += c
	}
	if err := errors.Join(errs...); err != nil {
		res.Err = err.Error()
	}
	if err := b.countRequests(res, from, to); err != nil && res.Err == "" {
		res.Err = "read audit log: " + err.Error()
	}
	return res
}

// renderStates compares K parallel states with one state of N, per phase:
// wall time, the providers' requests, requests per second at the API server
// (the providers' and every client's), 429 and 5xx answers, and retries.
func renderStates(results []*sizeResult) string {
	var b strings.Builder
	for _, r := range results {
		st := r.States
		if st == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("Many states, one API server: K states of N/K Applications, each phase run in all K at once, against one state of N (1 / K):\n\n")
			b.WriteString("| N | K | phase | wall s | provider requests | provider requests/s | all clients requests/s | 429 | 5xx | retries | provider max RSS MB (per process) | provider CPU s |\n")
			b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		}
		for _, ph := range phases {
			one, many := r.Deckhouse[ph], st.Phases[ph]
			if one == nil || many == nil {
				continue
			}
			pair := func(f func(*phaseResult) string) string { return f(one) + " / " + f(many) }
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.N, st.K, ph,
				pair(wallCell),
				pair(func(p *phaseResult) string { return fmt.Sprint(p.Provider.Total) }),
				pair(func(p *phaseResult) string { return perSecond(p.Provider.Total, p.Wall) }),
				pair(func(p *phaseResult) string { return perSecond(p.Provider.Total+p.Others.Total, p.Wall) }),
				pair(func(p *phaseResult) string { return fmt.Sprint(p.Provider.Throttled() + p.Others.Throttled()) }),
				pair(func(p *phaseResult) string { return fmt.Sprint(p.Provider.ServerErrors() + p.Others.ServerErrors()) }),
				pair(func(p *phaseResult) string { return fmt.Sprint(p.Provider.Retries) }),
				pair(func(p *phaseResult) string { return fmt.Sprintf("%.0f", float64(p.MaxRSSKB)/1024) }),
				pair(func(p *phaseResult) string { return seconds(p.CPU) }))
		}
		for _, ph := range phases {
			if p := st.Phases[ph]; p != nil && p.Err != "" {
				fmt.Fprintf(&b, "\n- N=%d in %d states, %s failed: %s\n", r.N, st.K, ph, p.Err)
			}
		}
	}
	return b.String()
}

func perSecond(n int, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(n)/d.Seconds())
}

// evaluateStates checks the parallel states of the largest N that ran them:
// no 5xx answers, no retry storm (retries at most 1 % of the requests, and
// at least 10 allowed), and the providers' requests over the four phases
// within 10 % of one state of N.
func evaluateStates(results []*sizeResult) []check {
	var r *sizeResult
	for _, x := range results {
		if x.States != nil && (r == nil || x.N > r.N) {
			r = x
		}
	}
	if r == nil {
		return nil
	}
	var one, many, fiveXX, retries int
	failed := false
	for _, ph := range phases {
		d, s := r.Deckhouse[ph], r.States.Phases[ph]
		if d == nil || s == nil || d.Err != "" || s.Err != "" {
			failed = true
			continue
		}
		one += d.Provider.Total
		many += s.Provider.Total
		fiveXX += s.Provider.ServerErrors() + s.Others.ServerErrors()
		retries += s.Provider.Retries
	}
	at := fmt.Sprintf("N=%d in %d states", r.N, r.States.K)
	return []check{
		{Name: at + ": no 5xx, no retry storm", Pass: !failed && fiveXX == 0 && retries <= max(10, many/100),
			Detail: fmt.Sprintf("%d 5xx answers, %d retries of %d requests", fiveXX, retries, many)},
		{Name: at + ": requests within 10 % of one state", Pass: !failed && one > 0 && float64(many) <= 1.1*float64(one),
			Detail: fmt.Sprintf("%d requests in %d states, %d in one", many, r.States.K, one)},
	}
}
