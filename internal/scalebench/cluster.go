package main

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// benchCluster is the part of the local control plane the benchmark uses.
type benchCluster interface {
	KubeconfigPath() string
	// RESTConfig is the admin connection (for a fault proxy in front).
	RESTConfig() *rest.Config
	// CountApplications counts Applications in every namespace.
	CountApplications(ctx context.Context) (int, error)
	Stop() error
}

type clusterOptions struct {
	Dir        string // kubeconfig and audit policy
	AuditLog   string
	PackageDir string // package folder seeded as every version
	Layout     layout // P versions, NS namespaces
}

type localCluster struct {
	cp *localdp.ControlPlane
}

// startCluster starts the local control plane with an audit log and seeds P
// package versions of one package, the namespaces, and a storage class
// catalog (AvailableClusterResource) in each namespace.
func startCluster(ctx context.Context, o clusterOptions) (benchCluster, error) {
	cp, err := localdp.Start(ctx, localdp.Options{Dir: o.Dir, AuditLogPath: o.AuditLog})
	if err != nil {
		return nil, err
	}
	c := &localCluster{cp: cp}
	if err := c.seed(ctx, o); err != nil {
		_ = cp.Stop()
		return nil, err
	}
	return c, nil
}

func (c *localCluster) seed(ctx context.Context, o clusterOptions) error {
	for _, v := range o.Layout.versions() {
		if err := c.cp.SeedPackageVersion(ctx, localdp.PackageVersionSeed{
			Repository: benchRepository,
			Package:    benchPackage,
			Version:    v,
			Dir:        o.PackageDir,
		}); err != nil {
			return fmt.Errorf("seed package version %s: %w", v, err)
		}
	}
	for _, ns := range o.Layout.namespaces() {
		if err := c.cp.EnsureNamespace(ctx, ns); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
		if err := c.cp.SeedAvailableClusterResource(ctx, ns, grantResource, grantDefault, grantAvailable); err != nil {
			return fmt.Errorf("seed AvailableClusterResource %s/%s: %w", ns, grantResource, err)
		}
	}
	return nil
}

func (c *localCluster) KubeconfigPath() string { return c.cp.KubeconfigPath() }

func (c *localCluster) RESTConfig() *rest.Config { return c.cp.RESTConfig() }

func (c *localCluster) CountApplications(ctx context.Context) (int, error) {
	l, err := c.cp.Dynamic().Resource(localdp.ApplicationGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("list applications: %w", err)
	}
	return len(l.Items), nil
}

func (c *localCluster) Stop() error { return c.cp.Stop() }
