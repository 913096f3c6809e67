package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// workflow is the part of a GitHub Actions workflow these tests read.
type workflow struct {
	On map[string]any `json:"on"`
	// True is "on" read as YAML 1.1, where a bare on is a boolean.
	True map[string]any `json:"true"`
	Jobs map[string]struct {
		Steps []struct {
			Name string            `json:"name"`
			Uses string            `json:"uses"`
			Run  string            `json:"run"`
			ID   string            `json:"id"`
			Env  map[string]string `json:"env"`
		} `json:"steps"`
	} `json:"jobs"`
}

func readWorkflow(t *testing.T, path string) workflow {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(raw, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return w
}

// TestRelease_WorkflowSetsEveryVariableGoreleaserReads: every
// {{ .Env.NAME }} of .goreleaser.yml is set on the step of the tag-triggered
// release workflow that runs `goreleaser release`, and the GPG fingerprint
// comes from the step that imports the key.
func TestRelease_WorkflowSetsEveryVariableGoreleaserReads(t *testing.T) {
	t.Parallel()
	cfg, err := os.ReadFile(".goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var needed []string
	for _, m := range regexp.MustCompile(`\.Env\.([A-Z0-9_]+)`).FindAllStringSubmatch(string(cfg), -1) {
		needed = append(needed, m[1])
	}
	if !slices.Contains(needed, "GPG_FINGERPRINT") {
		t.Fatalf(".goreleaser.yml no longer reads GPG_FINGERPRINT: update this test (found %v)", needed)
	}
	w := readWorkflow(t, ".github/workflows/release.yml")
	on := w.On
	if on == nil {
		on = w.True
	}
	push, _ := on["push"].(map[string]any)
	if tags, _ := push["tags"].([]any); len(tags) == 0 {
		t.Fatal("release.yml: not triggered by pushed tags")
	}
	var gpgStep string
	found := false
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			if strings.Contains(s.Uses, "import-gpg") {
				gpgStep = s.ID
			}
			if !strings.Contains(s.Run, "goreleaser release") {
				continue
			}
			found = true
			for _, name := range needed {
				if s.Env[name] == "" {
					t.Errorf("release.yml: the goreleaser step does not set %s", name)
				}
			}
			if gpgStep == "" || !strings.Contains(s.Env["GPG_FINGERPRINT"], "steps."+gpgStep+".outputs.fingerprint") {
				t.Errorf("release.yml: GPG_FINGERPRINT does not come from an earlier GPG import step: %q", s.Env["GPG_FINGERPRINT"])
			}
		}
	}
	if !found {
		t.Fatal("release.yml: no step runs goreleaser release")
	}
}

// TestRelease_TestWorkflowRunsTheCIEntryPointAndTheDryRun: CI runs .ci/run
// and a goreleaser snapshot.
func TestRelease_TestWorkflowRunsTheCIEntryPointAndTheDryRun(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t, ".github/workflows/test.yml")
	var runs []string
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			runs = append(runs, s.Run)
		}
	}
	all := strings.Join(runs, "\n")
	for _, want := range []string{".ci/run", "make release-snapshot"} {
		if !strings.Contains(all, want) {
			t.Errorf("test.yml: no step runs %s", want)
		}
	}
}
