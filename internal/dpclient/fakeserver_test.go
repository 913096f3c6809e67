package dpclient

import (
	"testing"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
)

// newFakeAPI is a TLS API server of Applications (dpfake) with nothing
// applied by DP: a test sets each status itself.
func newFakeAPI(t *testing.T) *dpfake.Server {
	t.Helper()
	return dpfake.New(t, dpfake.TLS())
}

// newClient is a client of f with a read timeout; its shared watches stop
// before the server closes (the server waits for open watches).
func newClient(t *testing.T, f *dpfake.Server, timeout time.Duration) *Client {
	t.Helper()
	c, err := New(f.Config(), Options{ReadTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopWatches(c) })
	return c
}

// applied is the status of DP's success on generation gen.
func applied(gen int64) map[string]any {
	return map[string]any{"conditions": []any{map[string]any{"type": ConditionConfigurationApplied, "status": "True",
		"reason": "ConfigurationApplied", "observedGeneration": gen, "lastTransitionTime": "2026-01-01T00:00:00Z"}}}
}

// appObject is an apply configuration of an Application.
func appObject(ns, name string) map[string]any {
	return map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"packageName": "p", "packageVersion": "v1.0.0", "packageRepositoryName": "main"},
	}
}
