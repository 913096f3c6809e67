package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The table of tools/matrix.sh is written from the cells' result files (no
// cell runs with MATRIX_CELLS=none): a cell's status and counts with its
// skip reasons, why a cell did not run, "–" outside the matrix, the failing
// tests, a note per example file left out and the dates, and it replaces the
// text between the markers of each MATRIX_PASTE file, leaving the rest as it
// was.
func TestMatrix_TableFromCellResultsIsPastedBetweenTheMarkers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("matrix.sh needs a Unix shell")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	dir := t.TempDir()
	cells := filepath.Join(dir, "cells")
	if err := os.MkdirAll(cells, 0o755); err != nil {
		t.Fatal(err)
	}
	results := map[string]string{
		"terraform@v1.11.4_v1.37.2": "status pass\ncounts 2 0 1\ndate 2026-12-06 01:20 UTC\nseconds 90\n" +
			"skip TestQuery: needs Terraform 1.14\nnote TestExamples_TofuValidate left out examples/a/identity.tf (import by identity needs Terraform 1.12 / OpenTofu 1.12)\n",
		"tofu@v1.12.6_v1.32.13": "status fail\ncounts 1 1 0\ndate 2026-12-06 01:25 UTC\nseconds 60\nfail TestAccApplication_X\n",
		"tofu@v1.12.6_v1.37.2":  "status notrun\ndate 2026-12-06 01:26 UTC\nreason the build of kube-apiserver v1.37.2 failed\n",
	}
	for name, text := range results {
		if err := os.WriteFile(filepath.Join(cells, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(dir, "README.md")
	before, after := "# Title\n\n<!-- matrix:begin -->\n", "<!-- matrix:end -->\n\nmore\n"
	if err := os.WriteFile(page, []byte(before+"an old table\n"+after), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bash, "matrix.sh")
	cmd.Env = append(os.Environ(),
		"MATRIX_DIR="+dir, "MATRIX_CELLS=none", "MATRIX_BUILD=0", "MATRIX_PASTE="+page,
		"MATRIX_CLIS=terraform@v1.11.4 tofu@v1.12.6", "MATRIX_KUBES=v1.32.13 v1.37.2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("matrix.sh: %v\n%s", err, out)
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(got)
	if !strings.HasPrefix(text, before) || !strings.HasSuffix(text, after) || strings.Contains(text, "an old table") {
		t.Fatalf("the text around the markers changed, or the old table stayed:\n%s", text)
	}
	for _, want := range []string{
		"| CLI \\ kube-apiserver | 1.32.13 | 1.37.2 |\n",
		"| Terraform 1.11.4 | – | **pass**: 2 passed, 1 skipped: needs Terraform 1.14 |\n",
		"| OpenTofu 1.12.6 | **fail**: 1 passed, 1 failed | not run: the build of kube-apiserver v1.37.2 failed |\n",
		"- OpenTofu 1.12.6 / kube-apiserver 1.32.13: TestAccApplication_X\n",
		"- Terraform 1.11.4 / kube-apiserver 1.37.2: TestExamples_TofuValidate left out examples/a/identity.tf",
		"2026-12-06 01:20 UTC to 2026-12-06 01:26 UTC; the cells took 3 minutes in all.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}
}
