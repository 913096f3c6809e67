package application

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// TestApplicationCheck_UnpublishedVersionWarnsAtPlan proves the plan-time
// verdict on a missing version: a warning, the checks deferred.
func TestApplicationCheck_UnpublishedVersionWarnsAtPlan(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane (TF_ACC=1)")
	}
	e := newPlanEnv(t)
	r := &Resource{}
	cl := dpclient.NewForInterfaces(e.cp.Dynamic(), nil, dpclient.Options{})
	in := checkInput{namespace: e.namespace, name: "app", packageName: e.pkg, version: "v9.9.9", repository: "main",
		settings: map[string]any{"replicas": 2}}
	out := r.checkAtPlan(context.Background(), cl, in)
	if !out.deferred || out.diags.HasError() || out.diags.WarningsCount() != 1 {
		t.Fatalf("want one warning and deferred checks, got deferred=%v %v", out.deferred, out.diags)
	}
	if !strings.Contains(out.diags[0].Detail(), "does not exist") {
		t.Fatalf("warning does not say the version is missing: %s", out.diags[0].Detail())
	}
	// At apply the missing version is waited for, until the context (the
	// create or update timeout) ends.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out = r.checkAtApply(ctx, cl, in)
	if !out.diags.HasError() || !strings.Contains(out.diags[0].Detail(), "waited") {
		t.Fatalf("at apply a version still missing when the timeout ends must be an error saying how long it waited: %v", out.diags)
	}
}

// TestApplicationCheck_EffectiveSettings proves the plan-time computation on
// the control plane: repository resolved, schema and grant defaults applied,
// sensitive values validated but kept out of the effective settings.
func TestApplicationCheck_EffectiveSettings(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the local control plane (TF_ACC=1)")
	}
	e := newPlanEnv(t)
	r := &Resource{}
	cl := dpclient.NewForInterfaces(e.cp.Dynamic(), nil, dpclient.Options{})
	in := checkInput{namespace: e.namespace, name: "app", packageName: e.pkg, version: "v1.0.0",
		settings:  map[string]any{"replicas": 2},
		sensitive: map[string]any{"auth": map[string]any{"password": "s3cr3t"}}}
	out := r.checkAtPlan(context.Background(), cl, in)
	if out.diags.HasError() || out.deferred {
		t.Fatalf("unexpected verdict: deferred=%v %v", out.deferred, out.diags)
	}
	if out.repository != "main" {
		t.Fatalf("repository = %q, want main", out.repository)
	}
	if out.effective["storageClass"] != "fast" || out.effective["logLevel"] != "Info" {
		t.Fatalf("defaults missing from effective settings: %v", out.effective)
	}
	if raw, _ := json.Marshal(out.effective); strings.Contains(string(raw), "s3cr3t") {
		t.Fatal("effective settings hold a sensitive value")
	}
	in.sensitive = map[string]any{"auth": map[string]any{"password": 5}}
	out = r.checkAtPlan(context.Background(), cl, in)
	if !out.diags.HasError() || !strings.Contains(out.diags[0].Summary()+out.diags[0].Detail(), "sensitive_settings.auth.password") {
		t.Fatalf("a wrong sensitive value must be reported at sensitive_settings.auth.password: %v", out.diags)
	}
}
