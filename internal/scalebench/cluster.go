package main

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// startCluster starts the local control plane in dir with an audit log and
// seeds lay.P versions of one package (each from packageDir), the
// namespaces, and a storage class catalog (AvailableClusterResource) in each
// namespace.
func startCluster(ctx context.Context, dir, auditLog, packageDir string, lay layout) (*localdp.ControlPlane, error) {
	cp, err := localdp.Start(ctx, localdp.Options{Dir: dir, AuditLogPath: auditLog})
	if err != nil {
		return nil, err
	}
	if err := seed(ctx, cp, packageDir, lay); err != nil {
		_ = cp.Stop()
		return nil, err
	}
	return cp, nil
}

func seed(ctx context.Context, cp *localdp.ControlPlane, packageDir string, lay layout) error {
	for _, v := range lay.versions() {
		if err := cp.SeedPackageVersion(ctx, localdp.PackageVersionSeed{
			Repository: benchRepository,
			Package:    benchPackage,
			Version:    v,
			Dir:        packageDir,
		}); err != nil {
			return fmt.Errorf("seed package version %s: %w", v, err)
		}
	}
	for _, ns := range lay.namespaces() {
		if err := cp.EnsureNamespace(ctx, ns); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
		if err := cp.SeedAvailableClusterResource(ctx, ns, grantResource, grantDefault, grantAvailable); err != nil {
			return fmt.Errorf("seed AvailableClusterResource %s/%s: %w", ns, grantResource, err)
		}
	}
	return nil
}

// countApplications counts the Applications in every namespace.
func countApplications(ctx context.Context, cp *localdp.ControlPlane) (int, error) {
	l, err := cp.Dynamic().Resource(localdp.ApplicationGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("list applications: %w", err)
	}
	return len(l.Items), nil
}
