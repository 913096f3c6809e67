package application

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// The local control plane of the tests that need one (TF_ACC=1), started on
// first use and stopped after the tests.
var (
	cpOnce sync.Once
	cp     *localdp.ControlPlane
	cpErr  error
	envSeq atomic.Int64
)

func TestMain(m *testing.M) {
	flag.Parse()
	if gaps := tableGaps(); len(gaps) > 0 {
		// The other tests build models of the table and would panic on a
		// missing field: run only the tests that name each place an
		// attribute is missing from (the table, the model, the page).
		fmt.Fprintf(os.Stderr, "the table of attribute facts has %d gaps: running only the tests that name them\n", len(gaps))
		if err := flag.Set("test.run", "^(TestAttributeFacts_CoverTheSchema|TestResourcePage_WhatTheStateHoldsNamesEveryAttribute)$"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if cp != nil {
		if err := cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the local control plane:", err)
		}
	}
	os.Exit(code)
}

// planEnv is a namespace of the local control plane with the demo package
// published as v1.0.0.
type planEnv struct {
	cp                         *localdp.ControlPlane
	namespace, pkg, repository string
}

// newPlanEnv returns a fresh namespace and package of the shared local
// control plane; the test is skipped without TF_ACC.
func newPlanEnv(t *testing.T) *planEnv {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane (TF_ACC=1)")
	}
	ctx := context.Background()
	cpOnce.Do(func() { cp, cpErr = localdp.Start(ctx, localdp.Options{}) })
	if cpErr != nil {
		t.Fatalf("starting the local control plane: %v", cpErr)
	}
	n := envSeq.Add(1)
	e := &planEnv{cp: cp, namespace: fmt.Sprintf("plan-%d", n), pkg: fmt.Sprintf("demo-%d", n), repository: "main"}
	if err := cp.EnsureNamespace(ctx, e.namespace); err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile(filepath.Join("..", "testdata", "app", "demo-settings.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.SeedPackageVersion(ctx, localdp.PackageVersionSeed{
		Repository: e.repository, Package: e.pkg, Version: "v1.0.0", SettingsSchema: schema,
	}); err != nil {
		t.Fatal(err)
	}
	if err := cp.SeedAvailableClusterResource(ctx, e.namespace, "storageclasses", "fast", []string{"fast", "slow"}); err != nil {
		t.Fatal(err)
	}
	return e
}
