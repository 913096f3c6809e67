package main

import (
	"strings"
	"testing"
	"time"
)

func TestSplitApps_DealsEveryAppToOneStateOfNearlyEqualSize(t *testing.T) {
	t.Parallel()
	apps := (layout{N: 103, P: 10, NS: 5}).apps()
	states := splitApps(apps, 10)
	if len(states) != 10 {
		t.Fatalf("%d states, want 10", len(states))
	}
	seen := map[string]bool{}
	for _, s := range states {
		if len(s) < 10 || len(s) > 11 {
			t.Errorf("state of %d apps, want 10 or 11", len(s))
		}
		for _, a := range s {
			if seen[a.Name] {
				t.Errorf("%s in two states", a.Name)
			}
			seen[a.Name] = true
		}
	}
	if len(seen) != len(apps) {
		t.Errorf("%d apps dealt, want %d", len(seen), len(apps))
	}
}

// statesRun is goodRun with K=10 states that made the same requests.
func statesRun() *sizeResult {
	r := goodRun()
	r.States = &statesResult{K: 10, Phases: map[string]*phaseResult{}}
	for ph, d := range r.Deckhouse {
		c := *d
		c.Provider = counts(d.Provider.ByVerbResource, nil)
		c.Others = newAuditCounts()
		r.States.Phases[ph] = &c
	}
	return r
}

func TestStates_PassWithTheRequestsOfOneStateAndNoErrors(t *testing.T) {
	t.Parallel()
	if f := failed(evaluateStates([]*sizeResult{statesRun()})); len(f) > 0 {
		t.Fatalf("failed: %v", f)
	}
	if cs := evaluateStates([]*sizeResult{goodRun()}); cs != nil {
		t.Errorf("checks without a states run: %v", cs)
	}
}

func TestStates_EachBreachFailsItsOwnCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(r *sizeResult)
		want   string
	}{
		{"a 5xx answer", func(r *sizeResult) { r.States.Phases[phaseApply].Others.Errors[503] = 1 }, "no 5xx"},
		{"a retry storm", func(r *sizeResult) { r.States.Phases[phaseApply].Provider.Retries = 50 }, "no retry storm"},
		{"20 % more requests", func(r *sizeResult) {
			r.States.Phases[phaseDestroy].Provider = counts(map[string]int{"delete applications": 300, "get applications": 300, "list applications": 150}, nil)
		}, "within 10 %"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := statesRun()
			tt.mutate(r)
			f := failed(evaluateStates([]*sizeResult{r}))
			if len(f) != 1 || !strings.Contains(f[0], tt.want) {
				t.Errorf("failed checks %v, want exactly one containing %q", f, tt.want)
			}
		})
	}
}

func TestRenderStates_OneRowPerPhaseWithOneStateBesideK(t *testing.T) {
	t.Parallel()
	r := statesRun()
	r.States.Phases[phaseApply].Wall = 5 * time.Second
	tab := renderStates([]*sizeResult{r})
	if !strings.Contains(tab, "| 300 | 10 | apply | 10.00 / 5.00 | 325 / 325 | 32 / 65 |") {
		t.Errorf("apply row wrong:\n%s", tab)
	}
	if renderStates([]*sizeResult{goodRun()}) != "" {
		t.Error("a table without a states run")
	}
}
