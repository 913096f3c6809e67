package provider

import (
	"context"
	"os"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// accOptions are what an acceptance test asks of its environment.
type accOptions struct {
	cli      bool
	cliPath  string   // the CLI binary; "" = OpenTofu
	cliEnv   []string // added to every CLI run
	race     bool     // the CLI runs a provider built with -race
	suffix   string   // added to the package name
	versions []localdp.PackageVersionSeed
}

// accOption is one option of newAccEnv.
type accOption func(*accOptions)

// withCLI gives the environment a CLI working folder (e.cli) whose CLI is
// the binary at path ("" = OpenTofu), with env added to every run.
func withCLI(path string, env ...string) accOption {
	return func(o *accOptions) { o.cli, o.cliPath, o.cliEnv = true, path, env }
}

// withRaceProvider makes the CLI run a provider built with -race.
func withRaceProvider() accOption { return func(o *accOptions) { o.race = true } }

// withPackageSuffix adds suffix to the environment's package name (e.pkg),
// whose versions withPackageVersion then seeds; v1.0.0 of the plain name
// stays published.
func withPackageSuffix(suffix string) accOption { return func(o *accOptions) { o.suffix = suffix } }

// withPackageVersion seeds one more package version; an empty Repository
// or Package is the environment's.
func withPackageVersion(seed localdp.PackageVersionSeed) accOption {
	return func(o *accOptions) { o.versions = append(o.versions, seed) }
}

// newAccEnv is the opening of every acceptance test: it skips without
// TF_ACC=1, runs the test in parallel with the others, and gives it a
// namespace and a package on the shared control plane (newAppEnv: "demo-<n>"
// published as v1.0.0 in repository "main", storageclasses granted with
// default fast), any further package versions, and a CLI working folder
// when asked.
func newAccEnv(t *testing.T, opts ...accOption) *appEnv {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane and the CLIs (TF_ACC=1)")
	}
	t.Parallel()
	var o accOptions
	for _, opt := range opts {
		opt(&o)
	}
	e := newAppEnv(t)
	e.pkg += o.suffix
	for _, seed := range o.versions {
		if seed.Repository == "" {
			seed.Repository = e.repository
		}
		if seed.Package == "" {
			seed.Package = e.pkg
		}
		if err := e.cp.SeedPackageVersion(context.Background(), seed); err != nil {
			t.Fatal(err)
		}
	}
	if o.cli {
		e.cli = newTofuCLI(t, o.race, o.cliEnv...)
		if o.cliPath != "" {
			e.cli.tofu = o.cliPath
		}
	}
	return e
}
