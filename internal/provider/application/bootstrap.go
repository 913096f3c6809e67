package application

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// Same-run bootstrap: a configuration that creates a PackageRepository and
// an Application from it in one run plans the Application with its checks
// deferred (the version is not there yet). At apply, DP may still be
// scanning the repository, so a version that does not exist yet, whose
// metadata is not loaded yet or whose schemas are not published yet is
// waited for, within the create or update timeout, and then the checks run
// and the write happens. A draft version, or one whose schemas do not
// compile, is final: no wait, the apply fails as before.
//
// The wait polls with a paged LIST of ApplicationPackageVersions rather than
// the client's per-run read cache, which keeps the first answer (a missing
// version) for the rest of the run.

// packageVersionPollInterval is the time between two reads of a version
// being waited for.
var packageVersionPollInterval = 2 * time.Second

// packageVersionPending reports whether DP may still make v installable:
// missing, metadata not loaded, or schemas not published yet.
func packageVersionPending(v *dpclient.PackageVersion) bool {
	switch {
	case v == nil || !v.Found:
		return true
	case v.Draft || v.CompileErr != nil:
		return false
	case !v.MetadataLoaded:
		return true
	}
	return v.Package == nil
}

// packageVersionAt reads the ApplicationPackageVersion name; at apply it
// waits for one still pending (see awaitPackageVersion).
func packageVersionAt(ctx context.Context, cl *dpclient.Client, name, who string, atPlan bool) (*dpclient.PackageVersion, string, error) {
	apv, err := cl.PackageVersion(ctx, name)
	if err != nil || atPlan {
		return apv, "", err
	}
	return awaitPackageVersion(ctx, cl, name, who, apv)
}

// awaitPackageVersion waits until the ApplicationPackageVersion name is no
// longer pending (see packageVersionPending) or ctx ends, logging progress
// at INFO. It returns the last version read and, when it waited, a note for
// the error of a version still not installable.
func awaitPackageVersion(ctx context.Context, cl *dpclient.Client, name, who string, first *dpclient.PackageVersion) (*dpclient.PackageVersion, string, error) {
	if !packageVersionPending(first) {
		return first, "", nil
	}
	start := time.Now()
	last := first
	tflog.Info(ctx, "waiting for the package version", map[string]any{
		"application": who, "package_version": name, "reason": first.NotReadyReason(),
	})
	err := wait.PollUntilContextCancel(ctx, packageVersionPollInterval, false, func(ctx context.Context) (bool, error) {
		cur, err := cl.RefreshPackageVersion(ctx, name)
		if err != nil {
			if dpclient.Unavailable(err) {
				return false, nil
			}
			return false, err
		}
		if cur.NotReadyReason() != last.NotReadyReason() {
			tflog.Info(ctx, "package version changed", map[string]any{
				"application": who, "package_version": name, "reason": cur.NotReadyReason(), "waited": time.Since(start).Round(time.Second).String(),
			})
		}
		last = cur
		return !packageVersionPending(cur), nil
	})
	waited := time.Since(start).Round(time.Second)
	if err != nil && ctx.Err() == nil {
		return nil, "", err
	}
	if packageVersionPending(last) {
		return last, fmt.Sprintf(" (waited %s for it, until the create or update timeout ended the wait)", waited), nil
	}
	tflog.Info(ctx, "package version ready", map[string]any{"application": who, "package_version": name, "waited": waited.String()})
	return last, "", nil
}
