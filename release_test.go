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

// goreleaserConfig is the part of .goreleaser.yml these tests read.
type goreleaserConfig struct {
	Builds []struct {
		ID           string   `json:"id"`
		Flags        []string `json:"flags"`
		ModTimestamp string   `json:"mod_timestamp"`
		Targets      []string `json:"targets"`
	} `json:"builds"`
	Archives []struct {
		ID         string `json:"id"`
		BuildsInfo struct {
			MTime string `json:"mtime"`
		} `json:"builds_info"`
		Files []struct {
			Src  string `json:"src"`
			Info struct {
				MTime string `json:"mtime"`
			} `json:"info"`
		} `json:"files"`
	} `json:"archives"`
	Checksum struct {
		IDs []string `json:"ids"`
	} `json:"checksum"`
	Signs []struct {
		ID        string `json:"id"`
		Artifacts string `json:"artifacts"`
	} `json:"signs"`
}

// TestRelease_ArchivesAreReproducibleAndTheSignedChecksumsStayValid: the
// configuration builds every zip from the commit alone (-trimpath, the
// commit's time on the binary and on every file of the zip, only listed
// files in it), has the one build tools/release.sh restricts with
// RELEASE_TARGETS, and limits the checksum file to the archives: goreleaser
// rewrites it after signing with every artifact it covers, so a signature in
// it would invalidate the signature.
func TestRelease_ArchivesAreReproducibleAndTheSignedChecksumsStayValid(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(".goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Builds) != 1 || cfg.Builds[0].ID != "provider" || len(cfg.Builds[0].Targets) != 0 {
		t.Fatalf("want one build \"provider\" without targets (tools/release.sh adds them), got %+v", cfg.Builds)
	}
	b := cfg.Builds[0]
	if !slices.Contains(b.Flags, "-trimpath") || !strings.Contains(b.ModTimestamp, ".CommitTimestamp") {
		t.Errorf("build: flags %v, mod_timestamp %q: want -trimpath and the commit's time", b.Flags, b.ModTimestamp)
	}
	if len(cfg.Archives) != 1 {
		t.Fatalf("want one archive, got %d", len(cfg.Archives))
	}
	a := cfg.Archives[0]
	if !strings.Contains(a.BuildsInfo.MTime, ".CommitDate") {
		t.Errorf("archives.builds_info.mtime = %q, want the commit's date", a.BuildsInfo.MTime)
	}
	if len(a.Files) == 0 {
		t.Error("archives.files is empty: goreleaser's default adds README and CHANGELOG with their checkout times")
	}
	for _, f := range a.Files {
		if !strings.Contains(f.Info.MTime, ".CommitDate") {
			t.Errorf("archive file %s: mtime %q, want the commit's date", f.Src, f.Info.MTime)
		}
	}
	if !slices.Equal(cfg.Checksum.IDs, []string{a.ID}) || a.ID == "" {
		t.Errorf("checksum.ids = %v, want only the archives' id %q", cfg.Checksum.IDs, a.ID)
	}
	for _, s := range cfg.Signs {
		if s.ID == a.ID || s.Artifacts != "checksum" {
			t.Errorf("sign %+v: want artifacts: checksum and an id other than the archives'", s)
		}
	}
}

// TestRelease_CISignsWithAThrowawayKeyAndVerifies: .ci/run makes a GPG key
// for the run in a GNUPGHOME of its own, runs make release with it, verifies
// the signature, and hands the release to the tests.
func TestRelease_CISignsWithAThrowawayKeyAndVerifies(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	run := string(raw)
	order := []string{`GNUPGHOME="$WORK/`, "--quick-gen-key", "make release", "gpg --batch --verify", "DECKHOUSE_TEST_RELEASE_DIST=", "make test"}
	at := 0
	for _, want := range order {
		i := strings.Index(run[at:], want)
		if i < 0 {
			t.Fatalf(".ci/run: no %q after the previous steps %v", want, order)
		}
		at += i
	}
}
