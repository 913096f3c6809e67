package localdp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStop_LeavesNoChildProcessesAndWritesAuditLog(t *testing.T) {
	if err := CheckBinaries(""); err != nil {
		t.Skip("local control plane binaries absent: " + err.Error())
	}
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit", "audit.log")
	before := len(childPIDs("kube-apiserver", "etcd"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, err := Start(ctx, Options{Dir: dir, AuditLogPath: audit, NoController: true})
	if err != nil {
		t.Fatal(err)
	}
	pids := cp.PIDs()
	if len(pids) != 2 {
		t.Errorf("PIDs = %v, want kube-apiserver and etcd", pids)
	}
	if _, err := os.Stat(filepath.Join(dir, "kubeconfig")); err != nil {
		t.Errorf("kubeconfig not written: %v", err)
	}
	if _, err := cp.Dynamic().Resource(ApplicationGVR).Namespace("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(audit)
	if err != nil || !strings.Contains(string(data), `"resource":"applications"`) {
		t.Errorf("audit log lacks the list of applications (err %v)", err)
	}

	cancel() // cancelling the context stops the control plane
	select {
	case <-cp.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("control plane did not stop on context cancel")
	}
	if err := cp.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	for _, pid := range pids {
		if ProcessAlive(pid, "") {
			t.Errorf("process %d still alive after Stop", pid)
		}
	}
	if after := len(childPIDs("kube-apiserver", "etcd")); after != before {
		t.Errorf("child control plane processes: %d before, %d after", before, after)
	}
}

// childPIDs lists the direct children of this process whose executable base
// name is one of names, read from /proc (empty where /proc is absent).
func childPIDs(names ...string) []int { return childPIDsWith(nil, names...) }
