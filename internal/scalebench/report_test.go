package main

import (
	"strings"
	"testing"
	"time"
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
		return &phaseResult{Wall: wall, Runs: []time.Duration{wall}, MaxRSSKB: 90 * 1024, CPU: time.Second, Provider: c}
	}
	fl := func(wall time.Duration) *phaseResult { return &phaseResult{Wall: wall} }
	return &sizeResult{
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
			phasePlanCreate: fl(time.Second), phaseApply: fl(time.Second),
			phasePlanRefresh: fl(2 * time.Second), phaseDestroy: fl(time.Second),
		},
	}
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
		{"no-op provider failed", func(r *sizeResult) { r.Noop[phaseApply].Err = "boom" }, "no leftovers"},
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
