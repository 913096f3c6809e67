package main

import (
	"strings"
	"testing"
	"time"
)

// Each shortcut alone is every other one turned off by name; all off and
// all on run twice, so that the sweep knows its noise.
func TestSweepConfigs_EachAloneTurnsTheOthersOff(t *testing.T) {
	got := sweepConfigs([]string{"a", "b", "c"})
	want := []sweepConfig{{Name: sweepOff, Env: "off"}, {Name: "a", Env: "b,c"}, {Name: "b", Env: "a,c"}, {Name: "c", Env: "a,b"},
		{Name: sweepOn}, {Name: sweepOff, Env: "off"}, {Name: sweepOn}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("config %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestSweepPlan_OnlyRunsTheNamedConfigurationsInOrder(t *testing.T) {
	tests := []struct {
		only    []string
		want    []string
		wantErr string
	}{
		{only: nil, want: []string{sweepOff, "a", "b", sweepOn, sweepOff, sweepOn}},
		{only: []string{sweepOn, "all on but b", sweepOn}, want: []string{sweepOn, "all on but b", sweepOn}},
		{only: []string{"nope"}, wantErr: `no configuration "nope"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.only, ","), func(t *testing.T) {
			got, err := sweepPlan([]string{"a", "b"}, tt.only)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			var names []string
			for _, c := range got {
				names = append(names, c.Name)
			}
			if strings.Join(names, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %v, want %v", names, tt.want)
			}
			for _, c := range got {
				if c.Name == "all on but b" && c.Env != "b" {
					t.Errorf("all on but b turns off %q, want b", c.Env)
				}
			}
		})
	}
}

// A saving counts only above the larger spread of the two all-off and the
// two all-on runs.
func TestRenderSweep_SavingCountsAboveTheNoise(t *testing.T) {
	run := func(name string, cpu float64) sweepRun {
		p := map[string]*phaseResult{}
		for _, ph := range phases {
			d := time.Duration(cpu * float64(time.Second))
			p[ph] = &phaseResult{CPU: d, TofuCPU: d, Wall: d}
		}
		return sweepRun{Config: sweepConfig{Name: name}, Phases: p}
	}
	runs := []sweepRun{run(sweepOff, 10), run("validate", 9.9), run("read", 5), run(sweepOn, 2), run(sweepOff, 10.4), run(sweepOn, 2.2)}
	out := renderSweep(1000, runs)
	if !strings.Contains(out, "- validate: within the noise") {
		t.Errorf("a saving of 0.3 against a noise of 0.4 counted:\n%s", out)
	}
	if !strings.Contains(out, "- read: pays (plan (create) provider CPU s −5.20") {
		t.Errorf("a saving of 5.2 not counted:\n%s", out)
	}
}

// What removing a shortcut costs is the mean of its leave-one-out runs less
// the mean of the all-on runs, marked above the larger spread of either.
func TestRenderLeaveOneOut_CostAboveTheSpreadIsMarked(t *testing.T) {
	run := func(name string, cpu float64) sweepRun {
		d := time.Duration(cpu * float64(time.Second))
		return sweepRun{Config: sweepConfig{Name: name}, Phases: map[string]*phaseResult{phaseDestroy: {CPU: d, TofuCPU: d, Wall: d}}}
	}
	runs := []sweepRun{run(sweepOn, 3.4), run("all on but read", 4.4), run(sweepOn, 3.7), run("all on but read", 4.6)}
	out := renderLeaveOneOut(runs)
	if !strings.Contains(out, "without read (2 runs against 2 all on): destroy provider CPU s +0.95* (±0.30)") {
		t.Errorf("unexpected report:\n%s", out)
	}
	if renderLeaveOneOut(runs[:1]) != "" {
		t.Error("a report without leave-one-out runs")
	}
}
