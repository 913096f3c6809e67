package localdp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkController_Apply300 measures how long the stand-in controller
// takes to apply 300 Applications over 5 namespaces, from the first create
// to the last ConfigurationApplied=True.
func BenchmarkController_Apply300(b *testing.B) {
	if shared == nil {
		b.Skip(sharedSkip)
	}
	cp := shared
	ctx := context.Background()
	if err := cp.SeedPackageVersion(ctx, PackageVersionSeed{
		Repository: "deckhouse", Package: "demo", Version: "v1.0.0", Dir: "testdata/demo",
	}); err != nil {
		b.Fatal(err)
	}
	const n, namespaces = 300, 5
	for i := 0; i < b.N; i++ {
		var nss []string
		for j := 0; j < namespaces; j++ {
			ns := fmt.Sprintf("bench%d-%d-%d", time.Now().UnixNano()%100000, i, j)
			if err := cp.SeedAvailableClusterResource(ctx, ns, "storageclasses", "fast", []string{"fast", "slow"}); err != nil {
				b.Fatal(err)
			}
			nss = append(nss, ns)
		}
		start := time.Now()
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(10)
		for k := 0; k < n; k++ {
			app := application(nss[k%namespaces], fmt.Sprintf("app-%d", k), "v1.0.0", map[string]any{"replicas": int64(1 + k%3)})
			g.Go(func() error {
				_, err := cp.Dynamic().Resource(ApplicationGVR).Namespace(app.GetNamespace()).Create(gctx, app, metav1.CreateOptions{})
				return err
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		created := time.Since(start)
		deadline := time.Now().Add(2 * time.Minute)
		for {
			applied := 0
			for _, ns := range nss {
				list, err := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					b.Fatal(err)
				}
				for k := range list.Items {
					if appliedWithReason(CondConfigurationApplied)(&list.Items[k]) {
						applied++
					}
				}
			}
			if applied == n {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d applied after 2 minutes", applied, n)
			}
			time.Sleep(250 * time.Millisecond)
		}
		b.ReportMetric(created.Seconds(), "create-s")
		b.ReportMetric(time.Since(start).Seconds(), "applied-s")
	}
}
