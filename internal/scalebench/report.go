package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Phases in the order they run.
const (
	phasePlanCreate  = "plan (create)"
	phaseApply       = "apply"
	phasePlanRefresh = "plan (refresh)"
	phaseDestroy     = "destroy"
)

var phases = []string{phasePlanCreate, phaseApply, phasePlanRefresh, phaseDestroy}

// phaseResult is one measured tofu command.
type phaseResult struct {
	Wall     time.Duration   // the reported run (the fastest when repeated)
	Runs     []time.Duration // every run
	MaxRSSKB int64           // provider peak RSS, kB (deckhouse only)
	Procs    int             // provider processes seen
	CPU      time.Duration   // provider CPU time (deckhouse only)
	TofuCPU  time.Duration   // CPU time of the CLI and everything it waited for (its providers)
	Provider auditCounts     // requests of the provider
	Others   auditCounts     // requests of every other client (the stand-in controller, the harness)
	Err      string          // "" when the command did what the phase expects
	Held     int             // requests a fault proxy held (plan with every read held)
	// StateBytes is the size of the state file after the apply (apply only).
	StateBytes int64
}

// CLICPU is the CLI's own CPU time: the CLI's with its providers' (from the
// process accounting) less the providers' own (sampled from /proc, which may
// miss a provider process's last poll interval, so the CLI's share errs
// high by at most that).
func (p *phaseResult) CLICPU() time.Duration {
	if p.TofuCPU <= p.CPU {
		return 0
	}
	return p.TofuCPU - p.CPU
}

// sizeResult holds the configurations' phases for one N.
type sizeResult struct {
	N         int
	Deckhouse map[string]*phaseResult
	Noop      map[string]*phaseResult // the same configuration served by the no-op provider
	Floor     map[string]*phaseResult // terraform_data
	// API is the API-work floor of apply and destroy: the same PATCHes,
	// DELETEs and waits sent by the benchmark with client-go, no CLI, no
	// provider (apifloor.go); Provider counts its requests.
	API       map[string]*phaseResult
	States    *statesResult // K parallel states of N/K (nil: not run)
	HeldReads *phaseResult  // plan with every read held (-held-reads)
	Leftovers int           // Applications left in the cluster after destroy
	CheckErr  string        // why the leftover check could not run
}

// wallCell is a phase's wall seconds, "(failed)" after them when the
// phase failed, "-" without a result.
func wallCell(p *phaseResult) string {
	if p == nil {
		return "-"
	}
	if p.Err != "" {
		return seconds(p.Wall) + " (failed)"
	}
	return seconds(p.Wall)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }

// ratio is deckhouse wall / floor wall, or "n/a".
func ratio(d, f *phaseResult) (float64, bool) {
	if d == nil || f == nil || f.Wall <= 0 || d.Err != "" || f.Err != "" {
		return 0, false
	}
	return d.Wall.Seconds() / f.Wall.Seconds(), true
}

// renderTable prints the results as one markdown table.
func renderTable(results []*sizeResult) string {
	var b strings.Builder
	b.WriteString("| N | phase | deckhouse wall s | no-op provider s | terraform_data s | ratio (no-op) | ratio (terraform_data) | provider max RSS MB | API requests (provider) | requests per app |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		for _, ph := range phases {
			d, f, z := r.Deckhouse[ph], r.Floor[ph], r.Noop[ph]
			dw, zw, fw, zr, rt, rss, req, per := wallCell(d), wallCell(z), wallCell(f), "-", "-", "-", "-", "-"
			if d != nil {
				rss = fmt.Sprintf("%.0f", float64(d.MaxRSSKB)/1024)
				req = fmt.Sprintf("%d", d.Provider.Total)
				per = fmt.Sprintf("%.2f", float64(d.Provider.Total)/float64(r.N))
			}
			if x, ok := ratio(d, z); ok {
				zr = fmt.Sprintf("%.1f×", x)
			}
			if x, ok := ratio(d, f); ok {
				rt = fmt.Sprintf("%.1f×", x)
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.N, ph, dw, zw, fw, zr, rt, rss, req, per)
		}
	}
	return b.String()
}

// cpuRatio is deckhouse CPU of CLI + provider / the no-op provider's, or not ok.
func cpuRatio(d, z *phaseResult) (float64, bool) {
	if d == nil || z == nil || d.Err != "" || z.Err != "" || d.TofuCPU <= 0 || z.TofuCPU <= 0 {
		return 0, false
	}
	return d.TofuCPU.Seconds() / z.TofuCPU.Seconds(), true
}

// statePerApp is the size of the state after the apply, per Application.
func statePerApp(p *phaseResult, n int) (float64, bool) {
	if p == nil || p.Err != "" || p.StateBytes <= 0 || n <= 0 {
		return 0, false
	}
	return float64(p.StateBytes) / float64(n), true
}

// renderWork prints the CLI's and the providers' CPU per phase, the wall
// time against the API-work floor, and the state's size per Application.
func renderWork(results []*sizeResult) string {
	var b strings.Builder
	b.WriteString("| N | phase | CPU s, CLI + provider (deckhouse / no-op / terraform_data) | CLI CPU s (deckhouse / no-op / terraform_data) | provider CPU s (deckhouse / no-op) | CPU ratio (no-op) | API-work floor s | ratio (API-work floor) | state B per Application (deckhouse / no-op / terraform_data) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		for _, ph := range phases {
			b.WriteString(workRow(r, ph))
		}
	}
	return b.String()
}

// workRow is renderWork's row of one phase.
func workRow(r *sizeResult, ph string) string {
	cpu := func(p *phaseResult, f func(*phaseResult) time.Duration) string {
		if p == nil || p.Err != "" || p.TofuCPU <= 0 {
			return "-"
		}
		return seconds(f(p))
	}
	total := func(p *phaseResult) time.Duration { return p.TofuCPU }
	cli := (*phaseResult).CLICPU
	prov := func(p *phaseResult) time.Duration { return p.CPU }

	d, z, f, a := r.Deckhouse[ph], r.Noop[ph], r.Floor[ph], r.API[ph]
	cr, api, ar, st := "-", wallCell(a), "-", "-"
	if x, ok := cpuRatio(d, z); ok {
		cr = fmt.Sprintf("%.2f×", x)
	}
	if x, ok := ratio(d, a); ok {
		ar = fmt.Sprintf("%.2f×", x)
	}
	if ph == phaseApply {
		parts := make([]string, 3)
		for i, p := range []*phaseResult{d, z, f} {
			parts[i] = "-"
			if x, ok := statePerApp(p, r.N); ok {
				parts[i] = fmt.Sprintf("%.0f", x)
			}
		}
		st = strings.Join(parts, " / ")
	}
	return fmt.Sprintf("| %d | %s | %s / %s / %s | %s / %s / %s | %s / %s | %s | %s | %s | %s |\n", r.N, ph,
		cpu(d, total), cpu(z, total), cpu(f, total), cpu(d, cli), cpu(z, cli), cpu(f, cli),
		cpu(d, prov), cpu(z, prov), cr, api, ar, st)
}

// renderDetails lists every phase's provider requests by verb and resource, and failures.
func renderDetails(results []*sizeResult) string {
	var b strings.Builder
	for _, r := range results {
		for _, ph := range phases {
			d := r.Deckhouse[ph]
			if d == nil {
				continue
			}
			fmt.Fprintf(&b, "- N=%d %s: provider %s; other clients %d", r.N, ph, d.Provider.Breakdown(), d.Others.Total)
			if len(d.Runs) > 1 {
				fmt.Fprintf(&b, "; runs %s s", joinDurations(d.Runs))
			}
			if f := r.Floor[ph]; f != nil && len(f.Runs) > 1 {
				fmt.Fprintf(&b, "; floor runs %s s", joinDurations(f.Runs))
			}
			if d.Procs > 0 {
				fmt.Fprintf(&b, "; provider processes %d, provider CPU %s s", d.Procs, seconds(d.CPU))
			}
			if d.TofuCPU > 0 {
				fmt.Fprintf(&b, "; CPU of CLI + provider %s s", seconds(d.TofuCPU))
			}
			if z := r.Noop[ph]; z != nil && z.TofuCPU > 0 {
				fmt.Fprintf(&b, "; no-op CPU of CLI + provider %s s (provider %s s, max RSS %.0f MB)", seconds(z.TofuCPU), seconds(z.CPU), float64(z.MaxRSSKB)/1024)
			}
			if f := r.Floor[ph]; f != nil && f.TofuCPU > 0 {
				fmt.Fprintf(&b, "; floor CPU %s s", seconds(f.TofuCPU))
			}
			if a := r.API[ph]; a != nil {
				fmt.Fprintf(&b, "; API-work floor %s", a.Provider.Breakdown())
			}
			b.WriteString("\n")
		}
		for _, ph := range phases {
			if d := r.Deckhouse[ph]; d != nil && d.Err != "" {
				fmt.Fprintf(&b, "- N=%d %s (deckhouse) failed: %s\n", r.N, ph, d.Err)
			}
			if z := r.Noop[ph]; z != nil && z.Err != "" {
				fmt.Fprintf(&b, "- N=%d %s (no-op) failed: %s\n", r.N, ph, z.Err)
			}
			if f := r.Floor[ph]; f != nil && f.Err != "" {
				fmt.Fprintf(&b, "- N=%d %s (floor) failed: %s\n", r.N, ph, f.Err)
			}
			if a := r.API[ph]; a != nil && a.Err != "" {
				fmt.Fprintf(&b, "- N=%d %s (API-work floor) failed: %s\n", r.N, ph, a.Err)
			}
		}
	}
	return b.String()
}

func joinDurations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = seconds(d)
	}
	return strings.Join(parts, "/")
}

// check is one target's verdict.
type check struct {
	Name   string
	Pass   bool
	Detail string
}

func (c check) String() string {
	v := "FAIL"
	if c.Pass {
		v = "PASS"
	}
	return fmt.Sprintf("%s: %s — %s", v, c.Name, c.Detail)
}

// targetLimits are the scale targets, as ratios and counts.
type targetLimits struct {
	RatioRefresh, RatioCreate float64 // plans against the terraform_data floor
	ApplySeconds              float64
	ApplyCPUPerApp            time.Duration // provider CPU at apply, per Application
	RequestsPerApp            float64       // apply (besides package versions and grant catalogs) and destroy
	RSSMB                     float64       // every phase
	StateRatio                float64       // state bytes per Application against the no-op provider's
	CPURatioPlan              float64       // CPU of CLI + provider against the no-op's, create and refresh plans
	CPURatioWrite             float64       // the same at apply and destroy
	APIFloorRatio             float64       // apply and destroy wall against the API-work floor
}

// defaultTargets: the apply time includes waiting for the stand-in
// controller, which shares the machine's cores with the CLI, the API server
// and etcd. The provider CPU at apply is 5 s for 1000 Applications.
var defaultTargets = targetLimits{RatioRefresh: 1.5, RatioCreate: 1.5, ApplySeconds: 30,
	ApplyCPUPerApp: 5 * time.Millisecond, RequestsPerApp: 1.1, RSSMB: 100,
	StateRatio: 1.5, CPURatioPlan: 1.25, CPURatioWrite: 1.5, APIFloorRatio: 1.3}

// isWait reports whether a "verb resource" key is part of waiting for the
// controller's verdict or for deletion: reads of Applications.
func isWait(key string) bool {
	verb, res, _ := strings.Cut(key, " ")
	return strings.HasPrefix(res, "applications") && (verb == "get" || verb == "list" || verb == "watch")
}

// isDiscovery reports whether a resource key is a discovery or OpenAPI download.
func isDiscovery(res string) bool {
	return strings.HasPrefix(res, "/api") || strings.HasPrefix(res, "/openapi") || strings.HasPrefix(res, "/version")
}

// evaluateTargets checks the targets on the largest N measured; p and ns are
// the numbers of package versions and namespaces.
func evaluateTargets(results []*sizeResult, p, ns int, lim targetLimits) []check {
	if len(results) == 0 {
		return []check{{Name: "benchmark ran", Pass: false, Detail: "no sizes measured"}}
	}
	r := slices.MaxFunc(results, func(a, b *sizeResult) int { return cmp.Compare(a.N, b.N) })
	n := r.N
	var out []check
	at := fmt.Sprintf("N=%d", n)

	// Refresh plan.
	if d, f := r.Deckhouse[phasePlanRefresh], r.Floor[phasePlanRefresh]; d != nil && f != nil {
		x, ok := ratio(d, f)
		out = append(out, check{
			Name:   fmt.Sprintf("refresh plan %s ≤ %.1f× terraform_data", at, lim.RatioRefresh),
			Pass:   ok && x <= lim.RatioRefresh,
			Detail: ratioDetail(d, f, x, ok),
		})
		appGets := d.Provider.Verb("get", "applications")
		appLists := d.Provider.Verb("list", "applications")
		apvGets := d.Provider.Verb("get", "applicationpackageversions")
		other := d.Provider.Total - appGets - appLists - apvGets
		allowed := n + p + ns
		out = append(out, check{
			Name: fmt.Sprintf("refresh plan %s ≤ 1 GET per application + 1 per package version (+1 grant catalog per namespace)", at),
			Pass: d.Err == "" && appGets+appLists <= n && apvGets <= p && d.Provider.Total <= allowed,
			Detail: fmt.Sprintf("%d requests (limit %d): get applications %d + list applications %d (≤%d), get package versions %d (≤%d), other %d",
				d.Provider.Total, allowed, appGets, appLists, n, apvGets, p, other),
		})
	} else {
		out = append(out, check{Name: "refresh plan " + at, Detail: "not measured"})
	}

	// Create plan.
	if d, f := r.Deckhouse[phasePlanCreate], r.Floor[phasePlanCreate]; d != nil && f != nil {
		x, ok := ratio(d, f)
		out = append(out, check{
			Name:   fmt.Sprintf("create plan %s ≤ %.1f× terraform_data", at, lim.RatioCreate),
			Pass:   ok && x <= lim.RatioCreate,
			Detail: ratioDetail(d, f, x, ok),
		})
		most, distinct := d.Provider.MaxGetsPerObject("applicationpackageversions")
		out = append(out, check{
			Name:   fmt.Sprintf("create plan %s fetches every package version once", at),
			Pass:   d.Err == "" && most == 1 && distinct == p,
			Detail: fmt.Sprintf("%d of %d versions read, at most %d GETs of one version; %d requests in all", distinct, p, most, d.Provider.Total),
		})
	} else {
		out = append(out, check{Name: "create plan " + at, Detail: "not measured"})
	}

	// Apply.
	if d := r.Deckhouse[phaseApply]; d != nil {
		wait := 0
		for k, v := range d.Provider.ByVerbResource {
			if isWait(k) {
				wait += v
			}
		}
		reads := d.Provider.Verb("get", "applicationpackageversions") + d.Provider.Verb("get", "availableclusterresources")
		perApp := float64(d.Provider.Total-reads) / float64(n)
		out = append(out, check{
			Name:   fmt.Sprintf("apply %s including the wait ≤ %.0f s", at, lim.ApplySeconds),
			Pass:   d.Err == "" && d.Wall.Seconds() <= lim.ApplySeconds,
			Detail: fmt.Sprintf("%s s", seconds(d.Wall)),
		})
		cpuLimit := lim.ApplyCPUPerApp * time.Duration(n)
		out = append(out, check{
			Name:   fmt.Sprintf("apply %s provider CPU ≤ %s s", at, seconds(cpuLimit)),
			Pass:   d.Err == "" && d.CPU > 0 && d.CPU <= cpuLimit,
			Detail: fmt.Sprintf("%s s", seconds(d.CPU)),
		})
		out = append(out, check{
			Name: fmt.Sprintf("apply %s ≤ %.1f requests per application plus package versions and grant catalogs", at, lim.RequestsPerApp),
			Pass: d.Err == "" && perApp <= lim.RequestsPerApp,
			Detail: fmt.Sprintf("%.2f per application: %d requests, %d of them package versions and grant catalogs; the wait %d",
				perApp, d.Provider.Total, reads, wait),
		})
	} else {
		out = append(out, check{Name: "apply " + at, Detail: "not measured"})
	}

	// Destroy.
	if d := r.Deckhouse[phaseDestroy]; d != nil {
		perApp := float64(d.Provider.Total) / float64(n)
		out = append(out, check{
			Name:   fmt.Sprintf("destroy %s ≤ %.1f requests per application", at, lim.RequestsPerApp),
			Pass:   d.Err == "" && perApp <= lim.RequestsPerApp,
			Detail: fmt.Sprintf("%.2f per application (%d requests)", perApp, d.Provider.Total),
		})
	} else {
		out = append(out, check{Name: "destroy " + at, Detail: "not measured"})
	}

	out = append(out, workChecks(r, lim)...)

	// RSS.
	var maxKB int64
	for _, ph := range phases {
		if d := r.Deckhouse[ph]; d != nil && d.MaxRSSKB > maxKB {
			maxKB = d.MaxRSSKB
		}
	}
	out = append(out, check{
		Name:   fmt.Sprintf("provider RSS %s ≤ %.0f MB in every phase", at, lim.RSSMB),
		Pass:   maxKB > 0 && float64(maxKB)/1024 <= lim.RSSMB,
		Detail: fmt.Sprintf("%.0f MB", float64(maxKB)/1024),
	})

	// Discovery on the hot path (every size).
	disc := 0
	for _, x := range results {
		for _, d := range x.Deckhouse {
			for k, v := range d.Provider.ByVerbResource {
				if _, res, _ := strings.Cut(k, " "); isDiscovery(res) {
					disc += v
				}
			}
		}
	}
	out = append(out, check{
		Name:   "no discovery or OpenAPI downloads by the provider",
		Pass:   disc == 0,
		Detail: fmt.Sprintf("%d such requests over all sizes and phases", disc),
	})

	// Errors and leftovers (every size).
	var failures []string
	leftovers := 0
	for _, x := range results {
		for _, ph := range phases {
			if d := x.Deckhouse[ph]; d == nil || d.Err != "" {
				failures = append(failures, fmt.Sprintf("N=%d %s", x.N, ph))
			}
			if f := x.Floor[ph]; f == nil || f.Err != "" {
				failures = append(failures, fmt.Sprintf("N=%d %s (floor)", x.N, ph))
			}
			if z := x.Noop[ph]; z != nil && z.Err != "" {
				failures = append(failures, fmt.Sprintf("N=%d %s (no-op)", x.N, ph))
			}
			if a := x.API[ph]; a != nil && a.Err != "" {
				failures = append(failures, fmt.Sprintf("N=%d %s (API-work floor)", x.N, ph))
			}
		}
		if x.CheckErr != "" {
			failures = append(failures, fmt.Sprintf("N=%d leftover check: %s", x.N, x.CheckErr))
		}
		leftovers += x.Leftovers
	}
	detail := fmt.Sprintf("%d Applications left after destroy", leftovers)
	if len(failures) > 0 {
		detail = "failed: " + strings.Join(failures, ", ") + "; " + detail
	}
	out = append(out, check{
		Name:   "no errors, no leftovers",
		Pass:   len(failures) == 0 && leftovers == 0,
		Detail: detail,
	})
	return out
}

func ratioDetail(d, f *phaseResult, x float64, ok bool) string {
	if !ok {
		return fmt.Sprintf("no ratio (deckhouse: %q, floor: %q)", d.Err, f.Err)
	}
	return fmt.Sprintf("%.1f× (%s s vs %s s)", x, seconds(d.Wall), seconds(f.Wall))
}

// workChecks are the targets on what the CLI pays for this resource at r's
// N: the state's size and the CPU of CLI + provider against the no-op
// provider's, and the apply's and destroy's wall time against the API-work
// floor.
func workChecks(r *sizeResult, lim targetLimits) []check {
	at := fmt.Sprintf("N=%d", r.N)
	var out []check

	d, okD := statePerApp(r.Deckhouse[phaseApply], r.N)
	z, okZ := statePerApp(r.Noop[phaseApply], r.N)
	c := check{Name: fmt.Sprintf("state bytes per Application %s ≤ %.1f× the no-op provider's", at, lim.StateRatio)}
	if okD && okZ {
		c.Pass = d <= lim.StateRatio*z
		c.Detail = fmt.Sprintf("%.2f× (%.0f B against %.0f B)", d/z, d, z)
	} else {
		c.Detail = "not measured (no state after the apply)"
	}
	out = append(out, c)

	for _, ph := range phases {
		limit := lim.CPURatioWrite
		if ph == phasePlanCreate || ph == phasePlanRefresh {
			limit = lim.CPURatioPlan
		}
		dk, nf := r.Deckhouse[ph], r.Noop[ph]
		c := check{Name: fmt.Sprintf("%s %s CPU of CLI + provider ≤ %.2f× the no-op provider's", ph, at, limit)}
		if x, ok := cpuRatio(dk, nf); ok {
			c.Pass = x <= limit
			c.Detail = fmt.Sprintf("%.2f× (%s s against %s s; the CLI's own %s s against %s s)", x,
				seconds(dk.TofuCPU), seconds(nf.TofuCPU), seconds(dk.CLICPU()), seconds(nf.CLICPU()))
		} else {
			c.Detail = "not measured"
		}
		out = append(out, c)
	}

	for _, ph := range []string{phaseApply, phaseDestroy} {
		dk, a := r.Deckhouse[ph], r.API[ph]
		c := check{Name: fmt.Sprintf("%s %s wall ≤ %.1f× the API-work floor", ph, at, lim.APIFloorRatio)}
		if x, ok := ratio(dk, a); ok {
			c.Pass = x <= lim.APIFloorRatio
			c.Detail = fmt.Sprintf("%.2f× (%s s against %s s)", x, seconds(dk.Wall), seconds(a.Wall))
		} else {
			c.Detail = "not measured"
		}
		out = append(out, c)
	}
	return out
}
