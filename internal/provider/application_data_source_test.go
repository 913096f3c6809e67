package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// seedApplication creates the Application name in e's namespace from e's
// package v1.0.0 and waits until the local controller has applied it.
func (e *appEnv) seedApplication(name, pkg string, settings map[string]any) *unstructured.Unstructured {
	e.t.Helper()
	ctx := context.Background()
	spec := map[string]any{"packageName": pkg, "packageVersion": "v1.0.0", "packageRepositoryName": e.repository}
	if settings != nil {
		spec["settings"] = settings
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": name, "namespace": e.namespace},
		"spec":       spec,
	}}
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	if _, err := client.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = client.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		if meta.IsStatusConditionTrue(dpclient.Conditions(cur), "ConfigurationApplied") {
			return cur
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("Application %s/%s not applied within 30s: status %v", e.namespace, name, cur.Object["status"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// updateApplicationStatus changes the status of an applied Application as DP would.
func (e *appEnv) updateApplicationStatus(name string, change func(status map[string]any)) {
	e.t.Helper()
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := client.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		status, _, _ := unstructured.NestedMap(cur.Object, "status")
		change(status)
		cur.Object["status"] = status
		_, err = client.UpdateStatus(context.Background(), cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func TestAccApplicationDataSource_SpecStatusAndEffectiveSettings(t *testing.T) {
	e := newAccEnv(t)
	e.seedApplication("web", e.pkg, map[string]any{"replicas": int64(2), "auth": map[string]any{"password": "s3cret"}})
	// What DP reports beyond the stand-in controller: addresses and a tip.
	e.updateApplicationStatus("web", func(status map[string]any) {
		status["urls"] = []any{map[string]any{"url": "https://web.example.com", "description": "Web UI"}}
		summary, _ := status["summary"].(map[string]any)
		summary["tip"] = "open the Web UI"
	})

	addr := "data.deckhouse_application.web"
	cfg := e.providerBlock() + fmt.Sprintf(`
data "deckhouse_application" "web" {
  namespace = %[1]q
  name      = "web"
}
output "ready" {
  value = one([for c in data.deckhouse_application.web.status.conditions : c.status if c.type == "Ready"])
}
output "condition_types" {
  value = [for c in data.deckhouse_application.web.status.conditions : c.type]
}
`, e.namespace)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(e.namespace+"/web")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("package_name"), knownvalue.StringExact(e.pkg)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("package_version"), knownvalue.StringExact("v1.0.0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("package_repository_name"), knownvalue.StringExact("main")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("release_channel"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("maintenance"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("labels").AtMapKey("packages.deckhouse.io/instance"), knownvalue.StringExact("web")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("annotations"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					// settings is spec.settings as written, secrets included.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("settings"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"replicas": knownvalue.Int64Exact(2),
						"auth":     knownvalue.ObjectExact(map[string]knownvalue.Check{"password": knownvalue.StringExact("s3cret")}),
					})),
					// effective_settings carries the schema and grant defaults DP applied.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_settings").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_settings").AtMapKey("maxReplicas"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_settings").AtMapKey("storageClass"), knownvalue.StringExact("fast")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_settings").AtMapKey("auth").AtMapKey("user"), knownvalue.StringExact("admin")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("state"), knownvalue.StringExact("Ready")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("tip"), knownvalue.StringExact("open the Web UI")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("message"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("installed_version"), knownvalue.StringExact("v1.0.0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("urls"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"url": knownvalue.StringExact("https://web.example.com"), "description": knownvalue.StringExact("Web UI"),
						}),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("conditions").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"type":                knownvalue.StringExact("ConfigurationApplied"),
						"status":              knownvalue.StringExact("True"),
						"reason":              knownvalue.StringExact("ConfigurationApplied"),
						"message":             knownvalue.StringExact(""),
						"observed_generation": knownvalue.Int64Exact(1),
					})),
					statecheck.ExpectKnownOutputValue("ready", knownvalue.StringExact("True")),
					statecheck.ExpectKnownOutputValue("condition_types", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("ConfigurationApplied"), knownvalue.StringExact("Installed"), knownvalue.StringExact("Ready"),
					})),
				},
			},
			{
				Config: e.providerBlock() + fmt.Sprintf(`
data "deckhouse_application" "missing" {
  namespace = %q
  name      = "absent"
}
`, e.namespace),
				ExpectError: regexp.MustCompile(`(?s)Application not found.*` + regexp.QuoteMeta(e.namespace+"/absent")),
			},
		},
	})
}

func TestAccApplicationDataSource_SettingsAreSensitive(t *testing.T) {
	e := newAccEnv(t)
	e.seedApplication("web", e.pkg, map[string]any{"auth": map[string]any{"password": "s3cret"}})
	// An output of a sensitive value must be declared sensitive.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.providerBlock() + fmt.Sprintf(`
data "deckhouse_application" "web" {
  namespace = %q
  name      = "web"
}
output "password" {
  value = data.deckhouse_application.web.effective_settings.auth.password
}
`, e.namespace),
				ExpectError: regexp.MustCompile(`(?i)sensitive`),
			},
			{
				Config: e.providerBlock() + fmt.Sprintf(`
data "deckhouse_application" "web" {
  namespace = %q
  name      = "web"
}
output "user" {
  value = nonsensitive(data.deckhouse_application.web.effective_settings.auth.user)
}
`, e.namespace),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("user", knownvalue.StringExact("admin")),
				},
			},
		},
	})
}

// The resource and the data source read an Application's status with one
// reader: for the same Application they hold the same status (null where DP
// has written nothing; the resource without conditions), the same
// effective_settings (a JSON string in the resource, an object in the data
// source), and DP's record, which the resource's state holds once (as
// effective_settings, last_applied_settings null) when they are equal.
func TestAccApplicationStatus_ResourceAndDataSourceAgree(t *testing.T) {
	e := newAccEnv(t)
	cfg := e.config(`  settings = { replicas = 2 }
  wait_for = "Ready"`) + `
data "deckhouse_application" "test" {
  namespace  = deckhouse_application.test.namespace
  name       = deckhouse_application.test.name
  depends_on = [deckhouse_application.test]
}
`
	ds := "data.deckhouse_application.test"
	sameStatus := func(key string) statecheck.StateCheck {
		p := tfjsonpath.New("status").AtMapKey(key)
		return statecheck.CompareValuePairs(appAddr, p, ds, p, compare.ValuesSame())
	}
	checks := []statecheck.StateCheck{
		sameStatus("state"), sameStatus("message"), sameStatus("tip"), sameStatus("installed_version"),
		sameStatus("urls"), sameStatus("configuration_applied"),
		// The resource's settings attributes are JSON strings, the data
		// source's objects: the same documents.
		statecheck.CompareValuePairs(appAddr, effectiveSettings, ds, tfjsonpath.New("effective_settings"), sameJSONDocument()),
		statecheck.CompareValuePairs(appAddr, effectiveSettings, ds, tfjsonpath.New("last_applied_settings"), sameJSONDocument()),
		statecheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("replicas", knownvalue.Int64Exact(2))),
		statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("last_applied_settings"), knownvalue.Null()),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("status").AtMapKey("configuration_applied").AtMapKey("observed_generation"), knownvalue.Int64Exact(1)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("effective_settings").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg, ConfigStateChecks: checks},
			{
				// DP reports more: an address without description, a tip, an
				// empty message. A refresh reads it into both.
				PreConfig: func() {
					e.updateApplicationStatus("app", func(status map[string]any) {
						status["urls"] = []any{map[string]any{"url": "https://app.example.com"}}
						summary, _ := status["summary"].(map[string]any)
						summary["tip"] = "open the UI"
						summary["message"] = ""
					})
				},
				Config: cfg,
				ConfigStateChecks: append(checks,
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("status").AtMapKey("urls"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"url": knownvalue.StringExact("https://app.example.com"), "description": knownvalue.Null(),
						}),
					})),
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("status").AtMapKey("message"), knownvalue.StringExact("")),
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("status").AtMapKey("tip"), knownvalue.StringExact("open the UI")),
				),
			},
		},
	})
}

// effective_settings are those of the current spec.settings: while DP has
// not applied the current generation (here it rejected it) they are null,
// and last_applied_settings still shows what DP applied last.
func TestAccApplicationDataSource_EffectiveSettingsNullWhileDPHasNotAppliedTheGeneration(t *testing.T) {
	e := newAccEnv(t)
	e.seedApplication("web", e.pkg, map[string]any{"replicas": int64(2)})
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := client.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		_ = unstructured.SetNestedField(cur.Object, int64(0), "spec", "settings", "replicas") // below the minimum
		_, err = client.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, err := client.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c := meta.FindStatusCondition(dpclient.Conditions(cur), "ConfigurationApplied"); c != nil &&
			c.ObservedGeneration == cur.GetGeneration() && c.Status == metav1.ConditionFalse {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("generation %d not rejected within 30s: status %v", cur.GetGeneration(), cur.Object["status"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	addr := "data.deckhouse_application.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: e.providerBlock() + fmt.Sprintf(`
data "deckhouse_application" "web" {
  namespace = %q
  name      = "web"
}
`, e.namespace),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("settings").AtMapKey("replicas"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_settings"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("last_applied_settings").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("configuration_applied"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"status": knownvalue.StringExact("False"), "reason": knownvalue.StringExact("SettingsInvalid"), "observed_generation": knownvalue.Int64Exact(2),
				})),
			},
		}},
	})
}
