package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// appEnv is one test's own namespace and package on the shared control plane.
type appEnv struct {
	t          *testing.T
	cp         *localdp.ControlPlane
	namespace  string
	pkg        string
	repository string
	cli        *tofuCLI // a CLI working folder, when newAccEnv is asked for one
}

var appEnvSeq atomic.Int64

// newAppEnv creates a namespace and a package "demo-<n>" published as
// v1.0.0 in repository "main", with storageclasses granted (default fast).
func newAppEnv(t *testing.T) *appEnv {
	t.Helper()
	cp := testControlPlane(t)
	n := appEnvSeq.Add(1)
	suffix := fmt.Sprintf("%d-%d", time.Now().UnixNano()%100000, n)
	e := &appEnv{t: t, cp: cp, namespace: "app-" + suffix, pkg: "demo-" + suffix, repository: "main"}
	ctx := context.Background()
	if err := cp.EnsureNamespace(ctx, e.namespace); err != nil {
		t.Fatal(err)
	}
	e.publish("v1.0.0")
	if err := cp.SeedAvailableClusterResource(ctx, e.namespace, "storageclasses", "fast", []string{"fast", "slow"}); err != nil {
		t.Fatal(err)
	}
	return e
}

// inNamespace is e's package and control plane in a second namespace
// "<namespace>-<suffix>", created here (no grants).
func (e *appEnv) inNamespace(suffix string) *appEnv {
	e.t.Helper()
	other := *e
	other.namespace = e.namespace + "-" + suffix
	if err := e.cp.EnsureNamespace(context.Background(), other.namespace); err != nil {
		e.t.Fatal(err)
	}
	return &other
}

func (e *appEnv) publish(version string) {
	e.t.Helper()
	schema, err := os.ReadFile(filepath.Join("testdata", "app", "demo-settings.yaml"))
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{
		Repository: e.repository, Package: e.pkg, Version: version, SettingsSchema: schema,
	}); err != nil {
		e.t.Fatal(err)
	}
}

// config renders a provider block and one deckhouse_application "test".
func (e *appEnv) config(body string) string {
	return e.providerBlock() + fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name            = "app"
  namespace       = %q
  package_name    = %q
  package_version = "v1.0.0"
%s
}
`, e.namespace, e.pkg, body)
}

func (e *appEnv) providerBlock() string {
	return fmt.Sprintf("provider \"deckhouse\" {\n  config_path = %q\n}\n", e.cp.KubeconfigPath())
}

func (e *appEnv) get(name string) (*unstructured.Unstructured, error) {
	return e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace).Get(context.Background(), name, metav1.GetOptions{})
}

// checkDestroyed fails when the Application is still there after the
// destroy. One the destroy deleted (a deletionTimestamp) whose finalizer DP
// has not removed yet, as a destroy with wait = false leaves it, is given
// time to go.
func (e *appEnv) checkDestroyed(*terraform.State) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		obj, err := e.get("app")
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if obj.GetDeletionTimestamp() == nil || time.Now().After(deadline) {
			return fmt.Errorf("Application %s/app still exists after destroy", e.namespace)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

const appAddr = "deckhouse_application.test"

func TestAccApplication_CreateUpdateImportDriftDelete(t *testing.T) {
	e := newAccEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{
			{
				// Create: schema defaults and the project's grant default are
				// visible in the plan, and the repository is resolved from the
				// ApplicationPackage.
				Config: e.config(`  settings = { replicas = 2 }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(appAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("replicas", knownvalue.Int64Exact(2))),
					plancheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("logLevel", knownvalue.StringExact("Info"))),
					plancheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("storageClass", knownvalue.StringExact("fast"))),
					plancheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("storage.mode", knownvalue.StringExact("Internal"))),
					plancheck.ExpectKnownValue(appAddr, tfjsonpath.New("package_repository_name"), knownvalue.StringExact("main")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("id"), knownvalue.StringExact(e.namespace+"/app")),
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("status").AtMapKey("configuration_applied").AtMapKey("status"), knownvalue.StringExact("True")),
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("status").AtMapKey("installed_version"), knownvalue.StringExact("v1.0.0")),
					// DP applied the effective settings: the state holds them once.
					statecheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("storageClass", knownvalue.StringExact("fast"))),
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("last_applied_settings"), knownvalue.Null()),
				},
			},
			{
				// Update in place.
				Config: e.config(`  settings = { replicas = 3 }
  labels   = { team = "payments" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(appAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("replicas", knownvalue.Int64Exact(3))),
				}},
				Check: func(*terraform.State) error {
					obj, err := e.get("app")
					if err != nil {
						return err
					}
					if got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "settings", "replicas"); got != 3 {
						return fmt.Errorf("spec.settings.replicas = %d, want 3", got)
					}
					if obj.GetLabels()["team"] != "payments" {
						return fmt.Errorf("label team not written: %v", obj.GetLabels())
					}
					return nil
				},
			},
			{
				// Import by namespace/name: any settings value may be a
				// secret, so the settings documents stay out of the state
				// until the first apply (settings an object, whose keys
				// flatten to settings.<key>; effective_settings and
				// last_applied_settings JSON strings, absent when null).
				ResourceName:            appAddr,
				ImportState:             true,
				ImportStateId:           e.namespace + "/app",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"settings", "effective_settings", "last_applied_settings"},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					for _, s := range states {
						for k := range s.Attributes {
							if strings.HasPrefix(k, "settings.") || strings.HasPrefix(k, "effective_settings") || strings.HasPrefix(k, "last_applied_settings") {
								return fmt.Errorf("an imported Application holds %s in the state", k)
							}
						}
					}
					return nil
				},
			},
			{
				// Drift made outside Terraform shows in the next plan and is corrected.
				PreConfig: func() {
					patch := []byte(`{"spec":{"settings":{"replicas":5}}}`)
					_, err := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace).Patch(context.Background(), "app",
						k8stypes.MergePatchType, patch, metav1.PatchOptions{FieldManager: "someone-else"})
					if err != nil {
						t.Fatal(err)
					}
				},
				Config: e.config(`  settings = { replicas = 3 }
  labels   = { team = "payments" }`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(appAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(appAddr, tfjsonpath.New("settings").AtMapKey("replicas"), knownvalue.Int64Exact(3)),
				}},
			},
			{
				// The field now belongs to another field manager: correcting
				// the drift takes force_conflicts (server-side apply semantics).
				Config: strings.Replace(e.config(`  settings = { replicas = 3 }
  labels   = { team = "payments" }`), "config_path", "force_conflicts = true\n  config_path", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(appAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					obj, err := e.get("app")
					if err != nil {
						return err
					}
					if got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "settings", "replicas"); got != 3 {
						return fmt.Errorf("drift not corrected: spec.settings.replicas = %d", got)
					}
					return nil
				},
			},
		},
	})
}

func TestAccApplication_PlanRejectsInvalidSettings(t *testing.T) {
	e := newAccEnv(t)
	step := func(settings, want string) resource.TestStep {
		return resource.TestStep{
			Config:      e.config("  settings = " + settings),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(`{ replcas = 2 }`, `settings\.replcas`),
			step(`{ replicas = "two" }`, `settings\.replicas`),
			step(`{ domain = "Not_A_Domain" }`, `Enter a domain name`),
			step(`{ replicas = 5, maxReplicas = 2 }`, `replicas must not exceed maxReplicas`),
			step(`{ storageClass = "gold" }`, `settings\.storageClass`),
			step(`{ storage = { mode = "External" } }`, `settings\.storage`),
			{
				Config: e.providerBlock() + fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name            = "a-name-longer-than-twenty-four"
  namespace       = %q
  package_name    = %q
  package_version = "v1.0.0"
}
`, e.namespace, e.pkg),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Application name too long`),
			},
		},
	})
}

func TestAccApplication_UpdateRules(t *testing.T) {
	e := newAccEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{
			{Config: e.config(`  settings = { size = 20, storageClass = "fast" }`)},
			{
				// A CEL rule with oldSelf compares with the applied settings.
				Config:      e.config(`  settings = { size = 10, storageClass = "fast" }`),
				ExpectError: regexp.MustCompile(`size can only grow`),
			},
			{
				// Immutable field, default mode: an error naming the field.
				Config:      e.config(`  settings = { size = 20, storageClass = "slow" }`),
				ExpectError: regexp.MustCompile(`settings\.storageClass`),
			},
			{
				// Immutable field in replace mode: a planned replacement.
				Config: e.config(`  settings = { size = 20, storageClass = "slow" }
  immutable_field_change = "replace"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(appAddr, plancheck.ResourceActionReplace),
					plancheck.ExpectKnownValue(appAddr, effectiveSettings, jsonAt("storageClass", knownvalue.StringExact("slow"))),
				}},
			},
		},
	})
}

func TestAccApplication_DestructiveSwitch(t *testing.T) {
	e := newAccEnv(t)
	external := `  settings = { storage = { mode = "External", url = "https://s3.example.com" } }`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{
			{Config: e.config(`  settings = { storage = { mode = "Internal" } }`)},
			{Config: e.config(external), ExpectError: regexp.MustCompile(`deletes the data`)},
			{
				Config: e.config(external + "\n  allow_destructive_settings_switch = true"),
				Check: func(*terraform.State) error {
					obj, err := e.get("app")
					if err != nil {
						return err
					}
					if v := obj.GetAnnotations()[dpapi.AnnotationAllowDestructiveSwitch]; v != "true" {
						return fmt.Errorf("annotation %s = %q, want \"true\"", dpapi.AnnotationAllowDestructiveSwitch, v)
					}
					return nil
				},
			},
		},
	})
}

// TestAccApplication_SensitiveSettings proves that sensitive settings reach
// the cluster but neither the plan nor the state, and that a rejection by
// DP's controller (here: an immutable field supplied only through
// sensitive_settings, whose old value the plan cannot know) fails the apply
// with the condition message.
func TestAccApplication_SensitiveSettings(t *testing.T) {
	e := newAccEnv(t)
	const first, second = "s3cr3t-first-value", "s3cr3t-second-value"
	cfg := func(secret, version string) string {
		_ = secret // passed as an ephemeral variable, as users do
		return `
variable "password" {
  type      = string
  sensitive = true
  ephemeral = true
}
` + e.config(fmt.Sprintf(`  settings = { replicas = 1 }
  sensitive_settings = { auth = { password = var.password } }
  sensitive_settings_version = %q`, version))
	}
	vars := func(secret string) config.Variables {
		return config.Variables{"password": config.StringVariable(secret)}
	}
	noSecretInPlan := plancheckFunc(func(raw []byte) error {
		if strings.Contains(string(raw), "s3cr3t") {
			return fmt.Errorf("the plan JSON holds a sensitive value")
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{
			{
				Config:           cfg(first, "1"),
				ConfigVariables:  vars(first),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{noSecretInPlan}},
				ConfigStateChecks: []statecheck.StateCheck{
					stateJSONCheck(func(raw []byte) error {
						if strings.Contains(string(raw), "s3cr3t") {
							return fmt.Errorf("the state holds a sensitive value")
						}
						return nil
					}),
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("sensitive_settings"), knownvalue.Null()),
				},
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						obj, err := e.get("app")
						if err != nil {
							return err
						}
						if got, _, _ := unstructured.NestedString(obj.Object, "spec", "settings", "auth", "password"); got != first {
							return fmt.Errorf("spec.settings.auth.password not written")
						}
						return nil
					},
					func(*terraform.State) error { return stateFilesWithout(e.namespace, "s3cr3t") },
				),
			},
			{
				// Same config again: no drift from the sensitive paths.
				Config:          cfg(first, "1"),
				ConfigVariables: vars(first),
				PlanOnly:        true,
			},
			{
				Config:          cfg(second, "2"),
				ConfigVariables: vars(second),
				ExpectError:     regexp.MustCompile(`SettingsInvalid`),
			},
		},
	})
}

// TestAccApplication_UnpublishedVersion: a plan against a version not
// published yet passes with a warning; once published, apply succeeds.
func TestAccApplication_UnpublishedVersion(t *testing.T) {
	e := newAccEnv(t)
	cfg := strings.Replace(e.config(`  settings = { replicas = 2 }`), `"v1.0.0"`, `"v2.0.0"`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{
			{Config: cfg, PlanOnly: true, ExpectNonEmptyPlan: true},
			{
				PreConfig: func() { e.publish("v2.0.0") },
				Config:    cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(appAddr, tfjsonpath.New("status").AtMapKey("installed_version"), knownvalue.StringExact("v2.0.0")),
				},
			},
		},
	})
}

// plancheckFunc checks the plan as JSON.
type plancheckFunc func(raw []byte) error

func (f plancheckFunc) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	raw, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	resp.Error = f(raw)
}

// stateJSONCheck checks the state (as `tofu show -json` prints it) as JSON.
type stateJSONCheck func(raw []byte) error

func (f stateJSONCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	resp.Error = f(raw)
}

// stateFilesWithout reads the state files of the test working directories
// that mention namespace and fails when one holds needle.
func stateFilesWithout(namespace, needle string) error {
	found := 0
	err := filepath.WalkDir(os.TempDir(), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return filepath.SkipDir
		}
		if d.IsDir() && p != os.TempDir() && !strings.HasPrefix(d.Name(), "plugintest") && !strings.HasPrefix(d.Name(), "work") &&
			filepath.Dir(p) == os.TempDir() {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".tfstate") {
			return nil
		}
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed by a test running in parallel
		}
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), namespace) {
			return nil
		}
		found++
		if strings.Contains(string(b), needle) {
			return fmt.Errorf("state file %s holds a sensitive value", p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if found == 0 {
		return fmt.Errorf("no state file of namespace %s found under %s", namespace, os.TempDir())
	}
	return nil
}
