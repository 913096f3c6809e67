package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// TestAccApplication_ApplyWaitsForAVersionPublishedDuringTheApply: the
// same-run bootstrap. The plan of an Application whose package version does
// not exist yet passes with its checks deferred; the version is published a
// few seconds after the apply starts; the apply waits for it (progress at
// INFO), runs the checks and writes. A draft version is not waited for.
func TestAccApplication_ApplyWaitsForAVersionPublishedDuringTheApply(t *testing.T) {
	e := newAccEnv(t, withCLI(""))
	c := e.cli
	c.write(strings.Replace(e.config(`  settings = { replicas = 2 }`), `"v1.0.0"`, `"v2.0.0"`, 1))

	plan := c.must("plan", "-out=bootstrap.tfplan")
	if !outputHas(plan, "Package version v2.0.0 not available") {
		t.Fatalf("the plan does not defer the checks on the missing version:\n%s", plan.Output())
	}
	const delay = 4 * time.Second
	published := make(chan error, 1)
	start := time.Now()
	go func() {
		time.Sleep(delay)
		published <- e.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{
			Repository: e.repository, Package: e.pkg, Version: "v2.0.0",
			SettingsSchema: []byte(`{"type": "object", "properties": {"replicas": {"type": "integer"}}}`),
		})
	}()
	apply := c.run(nil, "apply", "bootstrap.tfplan")
	if err := <-published; err != nil {
		t.Fatal(err)
	}
	if apply.Code != 0 {
		t.Fatalf("apply exited %d:\n%s", apply.Code, apply.Output())
	}
	if took := time.Since(start); took < delay {
		t.Fatalf("the apply ended after %s, before the version was published", took)
	}
	log := c.file(".tofu.log")
	if !strings.Contains(log, "waiting for the package version") || !strings.Contains(log, "package version ready") {
		t.Fatal("the wait logged no progress at INFO")
	}
	obj, err := e.get("app")
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(obj.Object, "spec", "packageVersion"); v != "v2.0.0" {
		t.Fatalf("spec.packageVersion = %q", v)
	}
	c.planClean()

	// A draft is final: the apply fails at once.
	if err := e.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{
		Repository: e.repository, Package: e.pkg, Version: "v3.0.0", Draft: true,
		SettingsSchema: []byte(`{"type": "object"}`),
	}); err != nil {
		t.Fatal(err)
	}
	c.write(strings.Replace(e.config(`  settings = { replicas = 2 }`), `"v1.0.0"`, `"v3.0.0"`, 1))
	start = time.Now()
	res := c.run(nil, "apply", "-auto-approve")
	if res.Code == 0 || !outputHas(res, "is a draft") {
		t.Fatalf("apply of a draft version: exit %d, want a failure naming the draft:\n%s", res.Code, res.Output())
	}
	if took := time.Since(start); took > time.Minute {
		t.Fatalf("the apply of a draft version waited %s", took)
	}
	c.must("destroy", "-auto-approve")
}
