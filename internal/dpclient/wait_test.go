package dpclient

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func app(gen int64, conds ...map[string]any) *unstructured.Unstructured {
	list := make([]any, len(conds))
	for i, c := range conds {
		list[i] = c
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"generation": gen, "name": "a", "namespace": "n"},
		"status": map[string]any{
			"summary":    map[string]any{"state": "Updating", "message": "installing", "tip": "wait"},
			"conditions": list,
		},
	}}
}

func cond(typ, status, reason string, observed int64) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": "m-" + reason, "observedGeneration": observed}
}

func TestVerdictOf_OnlyTheCurrentGenerationAndTerminalReasonsEndAWait(t *testing.T) {
	tests := []struct {
		name         string
		obj          *unstructured.Unstructured
		condition    string
		done, failed bool
	}{
		{"true for an older generation keeps waiting", app(2, cond("ConfigurationApplied", "True", "ConfigurationApplied", 1)), "", false, false},
		{"true for the current generation is done", app(2, cond("ConfigurationApplied", "True", "ConfigurationApplied", 2)), "", true, false},
		{"settings invalid is terminal", app(2, cond("ConfigurationApplied", "False", "SettingsInvalid", 2)), "", false, true},
		{"hook failure is terminal", app(2, cond("ConfigurationApplied", "False", "HookFailed", 2)), "", false, true},
		{"unmet requirements are terminal", app(2, cond("ConfigurationApplied", "False", "RequirementsUnmet", 2)), "", false, true},
		{"a failed download is retried by DP", app(2, cond("ConfigurationApplied", "False", "DownloadFailed", 2)), "", false, false},
		{"pending keeps waiting", app(2, cond("ConfigurationApplied", "False", "Pending", 2)), "", false, false},
		{"no condition keeps waiting", app(1), "", false, false},
		{"ready waits for the configuration first", app(2, cond("ConfigurationApplied", "True", "ConfigurationApplied", 1), cond("Ready", "True", "Ready", 0)), ConditionReady, false, false},
		{"ready after the configuration is done", app(2, cond("ConfigurationApplied", "True", "ConfigurationApplied", 2), cond("Ready", "True", "Ready", 0)), ConditionReady, true, false},
		{"not ready keeps waiting", app(2, cond("ConfigurationApplied", "True", "ConfigurationApplied", 2), cond("Ready", "False", "ApplyingManifests", 0)), ConditionReady, false, false},
		{"ready of an older generation keeps waiting", app(2, cond("ConfigurationApplied", "True", "ConfigurationApplied", 2), cond("Ready", "True", "Ready", 1)), ConditionReady, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := VerdictOf(tt.obj, tt.condition)
			if v.Done != tt.done || v.Failed != tt.failed {
				t.Fatalf("VerdictOf = %+v, want done=%v failed=%v", v, tt.done, tt.failed)
			}
		})
	}
}

func TestStatusSummary_NamesTheSummaryAndEveryCondition(t *testing.T) {
	got := StatusSummary(app(3, cond("Ready", "False", "ApplyingManifests", 3), cond("ConfigurationApplied", "True", "ConfigurationApplied", 3)))
	for _, want := range []string{"state Updating (installing), tip: wait", "ConfigurationApplied=True", "Ready=False ApplyingManifests: m-ApplyingManifests", "generation 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
}

// DP's text about a generation later writes replaced before DP applied it
// may quote a value no longer in the Application (a secret rotated since):
// it is withheld. Texts about the current generation, about the generation
// DP's record is of, or about no generation are kept.
func TestText_WithheldAboutAGenerationReplacedBeforeDPAppliedIt(t *testing.T) {
	rejected := func(gen int64) map[string]any {
		return cond(ConditionConfigurationApplied, "False", "SettingsInvalid", gen)
	}
	recorded := func(obj *unstructured.Unstructured) *unstructured.Unstructured {
		obj.Object["status"].(map[string]any)["lastAppliedConfiguration"] = map[string]any{"replicas": int64(1)}
		return obj
	}
	tests := []struct {
		name     string
		obj      *unstructured.Unstructured
		gen      int64
		withheld bool
	}{
		{"about the current generation", app(3, rejected(3)), 3, false},
		{"about a rejected generation a write replaced", app(4, rejected(3)), 3, true},
		{"about the generation DP's record is of", recorded(app(4, cond(ConditionConfigurationApplied, "True", "ConfigurationApplied", 3))), 3, false},
		{"about an older generation than DP's record", recorded(app(4, cond(ConditionConfigurationApplied, "True", "ConfigurationApplied", 3))), 2, true},
		{"about no generation", app(4, rejected(3)), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.obj, tt.gen, "value s3cr3t-old is refused")
			if withheld := !strings.Contains(got, "s3cr3t-old"); withheld != tt.withheld {
				t.Fatalf("Text = %q, want withheld %v", got, tt.withheld)
			}
			summary := StatusSummary(tt.obj)
			if tt.gen == 3 && strings.Contains(summary, "installing") == tt.withheld {
				t.Fatalf("StatusSummary = %q, want the summary's message withheld %v", summary, tt.withheld)
			}
		})
	}
}

func TestBackoff_GrowsToTheCapWithJitterAndResets(t *testing.T) {
	b := Backoff{Initial: 100 * time.Millisecond, Max: time.Second}
	for i := range 20 {
		d := b.Next()
		want := min(100*time.Millisecond<<i, time.Second)
		if d < want/2 || d > want {
			t.Fatalf("attempt %d: %v, want within [%v, %v]", i, d, want/2, want)
		}
	}
	b.Reset()
	if d := b.Next(); d > 100*time.Millisecond {
		t.Fatalf("after Reset: %v, want at most the initial delay", d)
	}
}

// TestDelete_DeletingStateIsProgressNotAFailure: while finalizers hold an
// Application, DP reports summary.state Deleting (newer releases also set
// the Deleting reason on its conditions); the destroy's wait takes that for
// progress and ends, without an error, when the Application is gone.
func TestDelete_DeletingStateIsProgressNotAFailure(t *testing.T) {
	deleting := map[string]any{"state": "Deleting", "message": "uninstalling the release"}
	tests := []struct {
		name   string
		status map[string]any
	}{
		{"summary Deleting", map[string]any{"summary": deleting}},
		{"summary Deleting with Deleting conditions", map[string]any{"summary": deleting, "conditions": []any{
			cond(ConditionConfigurationApplied, "False", "Deleting", 1), cond(ConditionReady, "False", "Deleting", 1),
			cond("Installed", "False", "Deleting", 1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t)
			c := newClient(t, f, 5*time.Second)
			f.Put("ns", "a", map[string]any{"generation": int64(1), "finalizers": []any{"packages.deckhouse.io/application"}})
			done := make(chan error, 1)
			go func() { done <- c.Delete(context.Background(), "ns", "a", "uid-a", true) }()
			eventually(t, "the delete waits", func() bool { return waitersIn(c, "ns") == 1 })
			f.SetStatus("ns", "a", tt.status)
			select {
			case err := <-done:
				t.Fatalf("the delete ended on DP's Deleting status: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			f.Finalize("ns", "a")
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("delete: %v, want none once the Application is gone", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the delete did not end when the Application was gone")
			}
		})
	}
}
