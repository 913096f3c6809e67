package application

import (
	"context"
	"errors"
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
// The wait reads the ApplicationPackageVersion by name (a GET) past the
// client's per-run read cache, which keeps the first answer (a missing
// version) for the rest of the run. It ends at the client's verdict on the
// API server with the verdict's error (an unreachable server is not a
// version still coming); only a transient answer of a server that answers
// (a 5xx, a 429, a cut connection) is "not yet". A read client-go's rate
// limiter refuses because the operation's deadline is near is the deadline:
// a timeout, not an error of the read.

// packageVersionPollInterval is the time between two reads of a version
// being waited for.
const packageVersionPollInterval = 2 * time.Second

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
	return awaitPackageVersion(ctx, cl, name, who, apv, packageVersionPollInterval)
}

// awaitPackageVersion waits until the ApplicationPackageVersion name is no
// longer pending (see packageVersionPending) or ctx ends, reading it every
// interval and logging progress at INFO. It returns the last version read
// and, when the deadline ended the wait, a note for the error of a version
// still not installable. A read that fails for good, or the client's
// verdict on the API server, ends the wait with that error.
func awaitPackageVersion(ctx context.Context, cl *dpclient.Client, name, who string, first *dpclient.PackageVersion,
	interval time.Duration,
) (*dpclient.PackageVersion, string, error) {
	if !packageVersionPending(first) {
		return first, "", nil
	}
	start := time.Now()
	last := first
	var lastErr error // the server's last fault, for the note of a timeout
	tflog.Info(ctx, "waiting for the package version", map[string]any{
		"application": who, "package_version": name, "reason": first.NotReadyReason(),
	})
	err := wait.PollUntilContextCancel(ctx, interval, false, func(pctx context.Context) (bool, error) {
		cur, err := cl.RefreshPackageVersion(pctx, name)
		if err != nil {
			if notYet(pctx, err) {
				if c := dpclient.Classify(err); !c.RateLimited() && (pctx.Err() == nil || c.Verdict()) {
					lastErr = err // a fault of the server, not the deadline
				}
				return false, nil
			}
			return false, err
		}
		lastErr = nil
		if cur.NotReadyReason() != last.NotReadyReason() {
			tflog.Info(ctx, "package version changed", map[string]any{
				"application": who, "package_version": name, "reason": cur.NotReadyReason(), "waited": time.Since(start).Round(time.Second).String(),
			})
		}
		last = cur
		return !packageVersionPending(cur), nil
	})
	waited := time.Since(start).Round(time.Second)
	if err != nil && (ctx.Err() == nil || !errors.Is(err, ctx.Err())) {
		return nil, "", err
	}
	if packageVersionPending(last) {
		note := fmt.Sprintf(" (waited %s for it, until the create or update timeout ended the wait", waited)
		if lastErr != nil {
			note += "; the last read failed: " + lastErr.Error()
		}
		return last, note + ")", nil
	}
	tflog.Info(ctx, "package version ready", map[string]any{"application": who, "package_version": name, "waited": waited.String()})
	return last, "", nil
}

// notYet reports whether a failed read of the version being waited for
// leaves the wait going: a transient answer of a server that answers, or
// the deadline (the operation's, or client-go's rate limiter refusing to
// wait past it), which the poll then ends as a timeout. The client's verdict
// on the API server is never "not yet".
func notYet(ctx context.Context, err error) bool {
	c := dpclient.Classify(err)
	return ctx.Err() != nil || c.RateLimited() || c.Transient()
}
