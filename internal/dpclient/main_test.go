package dpclient

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

var (
	cpOnce sync.Once
	cpInst *localdp.ControlPlane
	cpErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cpInst != nil {
		if err := cpInst.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the local control plane:", err)
		}
	}
	os.Exit(code)
}

// testEnv is one test's namespace and package on the shared local control plane.
type testEnv struct {
	cp        *localdp.ControlPlane
	namespace string
	pkg       string
}

var envSeq atomic.Int64

// newTestEnv starts (once) the local control plane, which needs TF_ACC=1
// and the toolchain, and gives the test its own namespace.
func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane (TF_ACC=1)")
	}
	cpOnce.Do(func() { cpInst, cpErr = localdp.Start(context.Background(), localdp.Options{}) })
	if cpErr != nil {
		t.Fatalf("starting the local control plane: %v", cpErr)
	}
	n := envSeq.Add(1)
	e := &testEnv{cp: cpInst, namespace: fmt.Sprintf("dpc-%d-%d", time.Now().UnixNano()%100000, n), pkg: fmt.Sprintf("pkg-%d", n)}
	if err := cpInst.EnsureNamespace(context.Background(), e.namespace); err != nil {
		t.Fatal(err)
	}
	return e
}
