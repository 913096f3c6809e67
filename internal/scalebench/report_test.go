package main

import (
	"strings"
	"testing"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

func counts(kv map[string]int, gets map[string]int) auditCounts {
	c := newAuditCounts()
	for k, v := range kv {
		c.ByVerbResource[k] = v
		c.Total += v
	}
	for k, v := range gets {
		c.GetsByName[k] = v
	}
	return c
}

// goodRun is a size-300 result that meets every target.
func goodRun() *sizeResult {
	apv := map[string]int{}
	for _, v := range (layout{P: 10}).versions() {
		apv["applicationpackageversions//bench-bench-app-"+v] = 1
	}
	ph := func(wall time.Duration, c auditCounts) *phaseResult {
		return &phaseResult{Wall: wall, Runs: []time.Duration{wall}, MaxRSSKB: 90 * 1024, CPU: time.Second, TofuCPU: 3 * time.Second, Provider: c}
	}
	fl := func(wall time.Duration) *phaseResult { return &phaseResult{Wall: wall} }
	nf := func(wall time.Duration) *phaseResult {
		return &phaseResult{Wall: wall, CPU: 500 * time.Millisecond, TofuCPU: 2500 * time.Millisecond}
	}
	r := &sizeResult{
		N: 300,
		Deckhouse: map[string]*phaseResult{
			phasePlanCreate: ph(1400*time.Millisecond, counts(map[string]int{"get applicationpackageversions": 10, "get availableclusterresources": 5}, apv)),
			phaseApply: ph(10*time.Second, counts(map[string]int{
				"get applicationpackageversions": 10, "get availableclusterresources": 5,
				"patch applications": 300, "watch applications": 5, "list applications": 5}, apv)),
			phasePlanRefresh: ph(2*time.Second, counts(map[string]int{"get applications": 300, "get applicationpackageversions": 10, "get availableclusterresources": 5}, apv)),
			phaseDestroy:     ph(4*time.Second, counts(map[string]int{"delete applications": 300, "watch applications": 5, "list applications": 5}, nil)),
		},
		Floor: map[string]*phaseResult{
			phasePlanCreate: fl(time.Second), phaseApply: fl(time.Second),
			phasePlanRefresh: fl(1500 * time.Millisecond), phaseDestroy: fl(time.Second),
		},
		Noop: map[string]*phaseResult{
			phasePlanCreate: nf(time.Second), phaseApply: nf(time.Second),
			phasePlanRefresh: nf(2 * time.Second), phaseDestroy: nf(time.Second),
		},
		API: map[string]*phaseResult{phaseApply: fl(25 * time.Second), phaseDestroy: fl(4 * time.Second)},
	}
	r.Deckhouse[phaseApply].StateBytes = 300 * 1500
	r.Noop[phaseApply].StateBytes = 300 * 1200
	r.Floor[phaseApply].StateBytes = 300 * 1000
	return r
}

func verdicts(cs []check) map[string]bool {
	out := map[string]bool{}
	for _, c := range cs {
		out[c.Name] = c.Pass
	}
	return out
}

func failed(cs []check) []string {
	var out []string
	for _, c := range cs {
		if !c.Pass {
			out = append(out, c.Name)
		}
	}
	return out
}

func TestTargets_AllPassWhenEveryLimitIsMet(t *testing.T) {
	t.Parallel()
	cs := evaluateTargets([]*sizeResult{goodRun()}, 10, 5, defaultTargets)
	if f := failed(cs); len(f) > 0 {
		for _, c := range cs {
			t.Log(c)
		}
		t.Fatalf("failed: %v", f)
	}
}

func TestTargets_EachBreachFailsItsOwnCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(r *sizeResult)
		want   string // substring of the one failing check's name
	}{
		{"slow refresh", func(r *sizeResult) { r.Deckhouse[phasePlanRefresh].Wall = 5 * time.Second }, "refresh plan N=300 ≤ 1.5× terraform_data"},
		{"refresh reads an application twice", func(r *sizeResult) {
			r.Deckhouse[phasePlanRefresh].Provider = counts(map[string]int{"get applications": 600}, nil)
		}, "refresh plan N=300 ≤ 1 GET"},
		{"slow create plan", func(r *sizeResult) { r.Deckhouse[phasePlanCreate].Wall = 4 * time.Second }, "create plan N=300 ≤ 1.5× terraform_data"},
		{"version fetched twice", func(r *sizeResult) {
			r.Deckhouse[phasePlanCreate].Provider.GetsByName["applicationpackageversions//bench-bench-app-v1.0.0"] = 2
		}, "fetches every package version once"},
		{"slow apply", func(r *sizeResult) { r.Deckhouse[phaseApply].Wall = 31 * time.Second }, "including the wait"},
		{"apply makes 2 requests per app", func(r *sizeResult) {
			r.Deckhouse[phaseApply].Provider = counts(map[string]int{"patch applications": 300, "get applications": 300}, nil)
		}, "apply N=300 ≤ 1.1 requests per application"},
		{"apply costs the provider too much CPU", func(r *sizeResult) { r.Deckhouse[phaseApply].CPU = 2 * time.Second }, "provider CPU ≤ 1.50 s"},
		{"destroy reads each app", func(r *sizeResult) {
			r.Deckhouse[phaseDestroy].Provider = counts(map[string]int{"delete applications": 300, "get applications": 300}, nil)
		}, "destroy N=300 ≤ 1.1 requests per application"},
		{"too much memory", func(r *sizeResult) { r.Deckhouse[phaseDestroy].MaxRSSKB = 200 * 1024 }, "RSS"},
		{"discovery on the hot path", func(r *sizeResult) {
			r.Deckhouse[phaseDestroy].Provider.ByVerbResource["get /openapi/v3"] = 1
		}, "no discovery"},
		{"leftovers", func(r *sizeResult) { r.Leftovers = 3 }, "no leftovers"},
		{"floor failed", func(r *sizeResult) { r.Floor[phaseDestroy].Err = "boom" }, "no leftovers"},
		{"state too large", func(r *sizeResult) { r.Deckhouse[phaseApply].StateBytes = 300 * 1801 }, "state bytes per Application N=300 ≤ 1.5× the no-op provider's"},
		{"create plan costs the CLI too much", func(r *sizeResult) { r.Deckhouse[phasePlanCreate].TofuCPU = 3200 * time.Millisecond }, "plan (create) N=300 CPU of CLI + provider ≤ 1.25×"},
		{"refresh plan costs the CLI too much", func(r *sizeResult) { r.Deckhouse[phasePlanRefresh].TofuCPU = 3200 * time.Millisecond }, "plan (refresh) N=300 CPU of CLI + provider ≤ 1.25×"},
		{"apply costs the CLI too much", func(r *sizeResult) { r.Deckhouse[phaseApply].TofuCPU = 3800 * time.Millisecond }, "apply N=300 CPU of CLI + provider ≤ 1.50×"},
		{"destroy costs the CLI too much", func(r *sizeResult) { r.Deckhouse[phaseDestroy].TofuCPU = 3800 * time.Millisecond }, "destroy N=300 CPU of CLI + provider ≤ 1.50×"},
		{"apply far above the API work", func(r *sizeResult) { r.API[phaseApply].Wall = 7 * time.Second }, "apply N=300 wall ≤ 1.3× the API-work floor"},
		{"destroy far above the API work", func(r *sizeResult) { r.API[phaseDestroy].Wall = 3 * time.Second }, "destroy N=300 wall ≤ 1.3× the API-work floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := goodRun()
			tt.mutate(r)
			f := failed(evaluateTargets([]*sizeResult{r}, 10, 5, defaultTargets))
			if len(f) != 1 || !strings.Contains(f[0], tt.want) {
				t.Errorf("failed checks %v, want exactly one containing %q", f, tt.want)
			}
		})
	}
}

func TestTargets_AFailedFloorFailsTheRunAndTheRatiosToIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(r *sizeResult)
		want   []string // substrings of the failing checks' names, in order
	}{
		{"no-op provider failed at apply", func(r *sizeResult) { r.Noop[phaseApply].Err = "boom" },
			[]string{"state bytes per Application", "apply N=300 CPU of CLI + provider", "no errors, no leftovers"}},
		{"API-work floor failed at destroy", func(r *sizeResult) { r.API[phaseDestroy].Err = "boom" },
			[]string{"destroy N=300 wall ≤ 1.3× the API-work floor", "no errors, no leftovers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := goodRun()
			tt.mutate(r)
			f := failed(evaluateTargets([]*sizeResult{r}, 10, 5, defaultTargets))
			if len(f) != len(tt.want) {
				t.Fatalf("failed checks %v, want %d: %v", f, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(f[i], w) {
					t.Errorf("failed check %d is %q, want one containing %q", i, f[i], w)
				}
			}
		})
	}
}

func TestTargets_UseTheLargestSize(t *testing.T) {
	t.Parallel()
	small := goodRun()
	small.N = 20
	small.Deckhouse[phasePlanRefresh].Wall = time.Minute // ignored: not the largest N
	cs := evaluateTargets([]*sizeResult{small, goodRun()}, 10, 5, defaultTargets)
	if !verdicts(cs)["refresh plan N=300 ≤ 1.5× terraform_data"] {
		t.Error("the N=300 refresh check must pass")
	}
}

func TestRenderTable_OneRowPerSizeAndPhase(t *testing.T) {
	t.Parallel()
	tab := renderTable([]*sizeResult{goodRun()})
	lines := strings.Split(strings.TrimSpace(tab), "\n")
	if len(lines) != 2+len(phases) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 2+len(phases), tab)
	}
	if !strings.Contains(tab, "| 300 | plan (refresh) | 2.00 | 2.00 | 1.50 | 1.0× | 1.3× | 90 | 315 | 1.05 |") {
		t.Errorf("refresh row wrong:\n%s", tab)
	}
}

func TestWorkChecks_PlansAllowAQuarterAndWritesAHalfMoreCPUThanTheNoopProvider(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		phase string
		cpu   time.Duration // deckhouse CPU of CLI + provider; the no-op's is 2 s
		pass  bool
	}{
		{"create plan at 1.25×", phasePlanCreate, 2500 * time.Millisecond, true},
		{"create plan at 1.3×", phasePlanCreate, 2600 * time.Millisecond, false},
		{"refresh plan at 1.25×", phasePlanRefresh, 2500 * time.Millisecond, true},
		{"refresh plan at 1.3×", phasePlanRefresh, 2600 * time.Millisecond, false},
		{"apply at 1.5×", phaseApply, 3 * time.Second, true},
		{"apply at 1.55×", phaseApply, 3100 * time.Millisecond, false},
		{"destroy at 1.3×", phaseDestroy, 2600 * time.Millisecond, true},
		{"destroy at 1.55×", phaseDestroy, 3100 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := goodRun()
			r.Deckhouse[tt.phase].TofuCPU = tt.cpu
			r.Noop[tt.phase].TofuCPU = 2 * time.Second
			for _, c := range workChecks(r, defaultTargets) {
				if strings.HasPrefix(c.Name, tt.phase+" N=300 CPU") {
					if c.Pass != tt.pass {
						t.Errorf("%s: pass %v, want %v", c, c.Pass, tt.pass)
					}
					return
				}
			}
			t.Fatalf("no CPU check for %s", tt.phase)
		})
	}
}

func TestWorkChecks_FailWhenNotMeasured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(r *sizeResult)
		want   string
	}{
		{"no state after the apply", func(r *sizeResult) { r.Noop[phaseApply].StateBytes = 0 }, "state bytes per Application"},
		{"no CLI CPU of the no-op provider", func(r *sizeResult) { r.Noop[phasePlanRefresh].TofuCPU = 0 }, "plan (refresh) N=300 CPU"},
		{"no API-work floor", func(r *sizeResult) { delete(r.API, phaseDestroy) }, "destroy N=300 wall"},
		{"API-work floor failed", func(r *sizeResult) { r.API[phaseApply].Err = "boom" }, "apply N=300 wall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := goodRun()
			tt.mutate(r)
			f := failed(workChecks(r, defaultTargets))
			if len(f) != 1 || !strings.Contains(f[0], tt.want) {
				t.Errorf("failed checks %v, want exactly one containing %q", f, tt.want)
			}
		})
	}
}

func TestCLICPU_IsTheCLIsLessItsProviders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		total, provide time.Duration
		want           time.Duration
	}{
		{"CLI and provider", 3 * time.Second, time.Second, 2 * time.Second},
		{"no provider (terraform_data)", 2 * time.Second, 0, 2 * time.Second},
		{"sampled provider CPU above the accounted total", time.Second, 1100 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &phaseResult{TofuCPU: tt.total, CPU: tt.provide}
			if got := p.CLICPU(); got != tt.want {
				t.Errorf("CLICPU = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRenderWork_ShowsCPUAPIFloorAndStateColumns(t *testing.T) {
	t.Parallel()
	tab := renderWork([]*sizeResult{goodRun()})
	lines := strings.Split(strings.TrimSpace(tab), "\n")
	if len(lines) != 2+len(phases) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 2+len(phases), tab)
	}
	for _, want := range []string{
		// CPU of CLI + provider, the CLI's own, the providers', ratio; API floor and ratio; state per Application.
		"| 300 | apply | 3.00 / 2.50 / - | 2.00 / 2.00 / - | 1.00 / 0.50 | 1.20× | 25.00 | 0.40× | 1500 / 1200 / 1000 |",
		"| 300 | plan (refresh) | 3.00 / 2.50 / - | 2.00 / 2.00 / - | 1.00 / 0.50 | 1.20× | - | - | - |",
		"| 300 | destroy | 3.00 / 2.50 / - | 2.00 / 2.00 / - | 1.00 / 0.50 | 1.20× | 4.00 | 1.00× | - |",
	} {
		if !strings.Contains(tab, want) {
			t.Errorf("missing row %q in:\n%s", want, tab)
		}
	}
}

func TestAPIFloorObject_IsTheProvidersApplyBodyUnderANameOfTheSameLength(t *testing.T) {
	t.Parallel()
	a := (layout{N: 2, P: 10, NS: 5}).apps()[1]
	obj := apiFloorObject(a)
	md := obj["metadata"].(map[string]any)
	if md["name"] != "api-0001" || len(md["name"].(string)) != len(a.Name) || md["namespace"] != a.Namespace {
		t.Errorf("metadata %v for %s/%s", md, a.Namespace, a.Name)
	}
	spec := obj["spec"].(map[string]any)
	if spec["packageName"] != benchPackage || spec["packageVersion"] != a.Version || spec["packageRepositoryName"] != benchRepository {
		t.Errorf("spec %v", spec)
	}
	if obj["kind"] != "Application" || obj["apiVersion"] != localdp.ApplicationGVR.GroupVersion().String() {
		t.Errorf("type %v %v", obj["apiVersion"], obj["kind"])
	}
}
