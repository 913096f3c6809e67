package application

import (
	"strings"
	"testing"
)

// A refresh that finds another Application (another UID) under the
// namespace and name of the state removes the resource from the state with
// a warning, instead of recording the newcomer's UID: a destroy, which
// refreshes first, then never deletes it.
func TestRead_ForeignUIDRemovesTheResourceFromState(t *testing.T) {
	h := newHarness(t)
	_, created := createWithSecret(t, h)
	h.dp.mu.Lock()
	h.dp.apps["app"]["metadata"].(map[string]any)["uid"] = "uid-newcomer"
	h.dp.mu.Unlock()
	resp := h.read(created.state, created.private)
	if hasError(resp.Diagnostics) {
		t.Fatalf("read: %s", diagText(resp.Diagnostics))
	}
	if v := decodeModel(t, resp.NewState); !v.IsNull() {
		t.Fatalf("the state still holds the resource: %v", v)
	}
	if !strings.Contains(diagText(resp.Diagnostics), "uid-newcomer") {
		t.Fatalf("no warning names the newcomer:\n%s", diagText(resp.Diagnostics))
	}
	if strings.Contains(string(resp.Private), "uid-newcomer") {
		t.Fatal("the newcomer's UID was recorded")
	}
}

// The same Application refreshed records its resourceVersion in the private
// state.
func TestRead_RecordsTheResourceVersion(t *testing.T) {
	h := newHarness(t)
	_, created := createWithSecret(t, h)
	if got := privateFromJSON(t, created.private).ResourceVersion; got == "" {
		t.Fatal("create recorded no resourceVersion")
	}
	h.dp.mu.Lock()
	h.dp.apps["app"]["metadata"].(map[string]any)["resourceVersion"] = "99"
	h.dp.mu.Unlock()
	resp := h.read(created.state, created.private)
	if hasError(resp.Diagnostics) {
		t.Fatalf("read: %s", diagText(resp.Diagnostics))
	}
	if got := privateFromJSON(t, resp.Private).ResourceVersion; got != "99" {
		t.Fatalf("resourceVersion %q, want 99", got)
	}
}
