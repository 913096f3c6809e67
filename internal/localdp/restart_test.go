package localdp

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// TestRestartAPIServer_SameAddressCredentialsAndData restarts kube-apiserver
// on a control plane of its own (the shared one serves parallel tests):
// while it is down the API refuses connections and etcd keeps running; once
// it is back a client built before the restart works unchanged, the data is
// still there, and the stand-in controller applies new Applications.
func TestRestartAPIServer_SameAddressCredentialsAndData(t *testing.T) {
	if err := CheckBinaries(""); err != nil {
		t.Skip("local control plane binaries absent: " + err.Error())
	}
	before := len(childPIDs("kube-apiserver", "etcd"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cp.Stop() }()

	kcfg, err := clientcmd.BuildConfigFromFlags("", cp.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(kcfg)
	if err != nil {
		t.Fatal(err)
	}
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "before", "v1.0.0", nil))
	waitCondition(t, cp, ns, "before", appliedWithReason(CondConfigurationApplied))

	pids := cp.PIDs()
	oldAPI, etcd := pidNamed(pids, "kube-apiserver"), pidNamed(pids, "etcd")
	if oldAPI == 0 || etcd == 0 {
		t.Fatalf("PIDs = %v, want kube-apiserver and etcd", pids)
	}

	t0 := time.Now()
	if err := cp.StopAPIServer(ctx, 0); err != nil { // a crash
		t.Fatal(err)
	}
	t.Logf("kube-apiserver stopped in %s", time.Since(t0).Round(time.Millisecond))
	if ProcessAlive(oldAPI, "kube-apiserver") {
		t.Errorf("kube-apiserver %d still alive after StopAPIServer", oldAPI)
	}
	if !ProcessAlive(etcd, "etcd") {
		t.Errorf("etcd %d stopped with kube-apiserver", etcd)
	}
	if got := cp.PIDs(); !slices.Equal(got, []int{etcd}) {
		t.Errorf("PIDs while stopped = %v, want only etcd %d", got, etcd)
	}
	_, err = client.Resource(ApplicationGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("list while stopped: %v, want connection refused", err)
	}
	if err := cp.StopAPIServer(ctx, time.Second); err != nil {
		t.Errorf("second StopAPIServer: %v", err)
	}

	start := time.Now()
	if err := cp.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver ready %s after its start", time.Since(start).Round(time.Millisecond))
	newAPI := pidNamed(cp.PIDs(), "kube-apiserver")
	if newAPI == 0 || newAPI == oldAPI {
		t.Errorf("kube-apiserver pid %d after the restart (was %d)", newAPI, oldAPI)
	}
	if _, err := client.Resource(ApplicationGVR).Namespace(ns).Get(ctx, "before", metav1.GetOptions{}); err != nil {
		t.Fatalf("the client built before the restart: %v", err)
	}
	t0 = time.Now()
	createApp(t, cp, application(ns, "after", "v1.0.0", nil))
	waitCondition(t, cp, ns, "after", appliedWithReason(CondConfigurationApplied))
	t.Logf("Application applied %s after its creation", time.Since(t0).Round(time.Millisecond))

	// RestartAPIServer does both, with a pause between.
	start = time.Now()
	if err := cp.RestartAPIServer(ctx, 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("RestartAPIServer took %s, want at least the 500ms down", d)
	}
	if _, err := client.Resource(ApplicationGVR).Namespace(ns).Get(ctx, "after", metav1.GetOptions{}); err != nil {
		t.Fatalf("after RestartAPIServer: %v", err)
	}
	t.Logf("RestartAPIServer took %s", time.Since(start).Round(time.Millisecond))
	restarted := cp.PIDs()

	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range restarted {
		if ProcessAlive(pid, "") {
			t.Errorf("process %d alive after Stop", pid)
		}
	}
	if after := len(childPIDs("kube-apiserver", "etcd")); after != before {
		t.Errorf("child control plane processes: %d before, %d after Stop", before, after)
	}
	if err := cp.StartAPIServer(ctx); err == nil {
		t.Error("StartAPIServer after Stop succeeded")
	}
}
