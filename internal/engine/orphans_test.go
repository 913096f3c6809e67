package engine

import (
	"fmt"
	"testing"
)

// TestOrphans_ListedFromTheValuesDefault: the kinds DP deletes with the
// application are the default of orphanResources in values.yaml; bare and
// group-qualified versions are kept as written, malformed entries skipped.
func TestOrphans_ListedFromTheValuesDefault(t *testing.T) {
	t.Parallel()
	p := loadYAML(t, "type: object\n", `
type: object
properties:
  orphanResources:
    type: array
    default:
      - {kind: PersistentVolumeClaim, version: v1}
      - {kind: Job, version: batch/v1}
      - {kind: Broken}
`)
	got := p.OrphanResources()
	if fmt.Sprint(got) != "[{PersistentVolumeClaim v1} {Job batch/v1}]" {
		t.Fatalf("got %v", got)
	}
	if g, q := got[1].Group(); g != "batch" || !q || got[1].APIVersion() != "v1" {
		t.Fatalf("group of %v: %q %v", got[1], g, q)
	}
	if g, q := got[0].Group(); g != "" || q {
		t.Fatalf("bare version has no group: %q", g)
	}
	if loadYAML(t, "type: object\n", "").OrphanResources() != nil {
		t.Fatal("no values schema: no orphans")
	}
}
