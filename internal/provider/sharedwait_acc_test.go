package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/faultproxy"
)

// The waits of an apply and of a destroy of several Applications of one
// namespace share one watch per provider process: the apply sends a PATCH
// per Application and one watch, the destroy a DELETE per Application and at
// most one watch (for the deletions the finalizers hold).
func TestAccSharedWaits_OneWatchPerNamespaceAtApplyAndDestroy(t *testing.T) {
	f := newFaultEnv(t)
	const n = 6
	var cfg strings.Builder
	cfg.WriteString(f.provider(""))
	for i := range n {
		cfg.WriteString(f.app(fmt.Sprintf("a%d", i), fmt.Sprintf("app%d", i), "  settings = { replicas = 2 }"))
	}
	f.cli.write(cfg.String())
	f.cli.must("apply", "-auto-approve")
	if got := f.proxy.Count(faultproxy.VerbPatch, "applications"); got != n {
		t.Errorf("apply: %d PATCH requests, want %d", got, n)
	}
	if got := f.proxy.Count(faultproxy.VerbWatch, "applications"); got > 1 {
		t.Errorf("apply: %d watch requests for %d Applications of one namespace, want at most 1", got, n)
	}
	f.proxy.ResetCounts()
	f.cli.must("destroy", "-auto-approve")
	if got := f.proxy.Count(faultproxy.VerbDelete, "applications"); got != n {
		t.Errorf("destroy: %d DELETE requests, want %d", got, n)
	}
	if got := f.proxy.Count(faultproxy.VerbWatch, "applications"); got > 1 {
		t.Errorf("destroy: %d watch requests for %d Applications of one namespace, want at most 1", got, n)
	}
	t.Logf("destroy: requests %v", f.proxy.Counts())
	if got := f.countApps(); got != 0 {
		t.Fatalf("%d Applications left after destroy, want 0", got)
	}
}
