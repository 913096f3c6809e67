package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// createAs creates the Application name as kubectl create does: an Update
// operation of field manager manager, which then owns every field it set.
func (e *appEnv) createAs(manager, name string, settings map[string]any) {
	e.t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": name, "namespace": e.namespace},
		"spec": map[string]any{"packageName": e.pkg, "packageVersion": "v1.0.0", "packageRepositoryName": e.repository,
			"settings": settings},
	}}
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	if _, err := client.Create(context.Background(), obj, metav1.CreateOptions{FieldManager: manager}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = client.Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// editAs changes settings of the Application name as kubectl edit does: a
// merge patch, an Update operation of field manager manager.
func (e *appEnv) editAs(manager, name string, settings map[string]any) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"spec": map[string]any{"settings": settings}})
	if _, err := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace).Patch(context.Background(), name,
		k8stypes.MergePatchType, body, metav1.PatchOptions{FieldManager: manager}); err != nil {
		e.t.Fatal(err)
	}
}

// setSummaryMessage makes DP's status.summary.message say text.
func (e *appEnv) setSummaryMessage(name, text string) {
	e.updateApplicationStatus(name, func(status map[string]any) {
		summary, _ := status["summary"].(map[string]any)
		if summary == nil {
			summary = map[string]any{}
		}
		summary["message"] = text
		status["summary"] = summary
	})
}

// warnsOwnedBy fails unless the run warns that each path is owned by
// manager, and never by no field manager.
func warnsOwnedBy(t *testing.T, step string, res tofuResult, manager string, paths ...string) {
	t.Helper()
	if !outputHas(res, "Fields owned by other field managers") || outputHas(res, "(no field manager)") {
		t.Fatalf("%s: the ownership warning is missing or names no field manager:\n%s", step, res.Output())
	}
	for _, p := range paths {
		if !outputHas(res, "settings."+p+" ("+manager+")") {
			t.Fatalf("%s: the warning does not name settings.%s (%s):\n%s", step, p, manager, res.Output())
		}
	}
}

// refreshedByShortcut fails unless the refresh of the run logged since the
// log was truncated was answered by the protocol shortcut (when the
// shortcuts are on): the warning it checks came from that path.
func refreshedByShortcut(t *testing.T, c *tofuCLI) {
	t.Helper()
	if os.Getenv("DECKHOUSE_PROVIDER_SHORTCUTS") != "" {
		return
	}
	if !strings.Contains(c.file(filepath.Base(c.logPath)), "refresh of an unchanged resource answered by the protocol shortcut") {
		t.Fatal("the refresh of the recorded resourceVersion was not answered by the shortcut")
	}
}

// TestAccApplication_ImportThenAdjustTakesOverAndStoresNoForeignSecret: an
// Application that kubectl create wrote (an Update manager owning every
// key, one of them a secret quoted by DP's texts) is imported, in both
// import_settings modes, with a configuration that changes one key. The
// apply takes that key over (no conflict), leaves the other keys to
// kubectl-create, and the next plans are clean and warn naming
// kubectl-create on every refresh (the framework's and the shortcut's).
// The secret is in no output, state or saved plan along the way (with
// "read", from the apply on: that mode stores the imported settings by
// design), and DP's texts quoting it are stored redacted.
func TestAccApplication_ImportThenAdjustTakesOverAndStoresNoForeignSecret(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs OpenTofu and the local control plane (TF_ACC=1)")
	}
	t.Parallel()
	for cli, path := range clis(t) {
		for _, mode := range []string{"omit", "read"} {
			t.Run(cli+"/"+mode, func(t *testing.T) {
				e := newAccEnv(t, withCLI(path))
				c := e.cli
				marker := "s" + randomHex(t, 10)
				e.createAs("kubectl-create", "app", map[string]any{
					"replicas": int64(2), "domain": marker + ".example.com", "auth": map[string]any{"password": marker},
				})
				s := &secretScan{t: t, c: c, e: e, needles: secretNeedles(marker), skipClusterStatus: true}
				provider := strings.Replace(e.providerBlock(), "config_path", "import_settings = \""+mode+"\"\n  config_path", 1)
				resource := strings.TrimPrefix(e.config("  settings = { replicas = 3 }\n  package_repository_name = \"main\""), e.providerBlock())
				importBlock := "\nimport {\n  to = deckhouse_application.test\n  id = \"" + e.namespace + "/app\"\n}\n"

				c.write(provider + resource + importBlock)
				if mode == "omit" {
					s.ok("apply", "-auto-approve")
					s.scan("import and apply")
				} else {
					// The diff of the import shows the cluster's settings (the
					// documented price of "read"): not scanned.
					c.must("apply", "-auto-approve")
					_ = os.Truncate(c.logPath, 0)
				}
				obj, err := e.get("app")
				if err != nil {
					t.Fatal(err)
				}
				settings, _, _ := unstructured.NestedMap(obj.Object, "spec", "settings")
				if r, _, _ := unstructured.NestedInt64(settings, "replicas"); r != 3 || settings["domain"] != marker+".example.com" {
					t.Fatalf("after the apply: spec.settings %v, want replicas 3 and kubectl-create's domain kept", settings)
				}

				c.write(provider + resource)
				res := s.run("plan", "-detailed-exitcode")
				if res.Code != 0 {
					t.Fatalf("plan after the first apply: exit %d, want 0:\n%s", res.Code, res.Output())
				}
				warnsOwnedBy(t, "plan after the first apply", res, "kubectl-create", "domain", "auth")

				// DP quotes the secret; the refresh records the text redacted,
				// and the refresh through the shortcut warns as well.
				e.setSummaryMessage("app", "admin login with password "+marker+" verified")
				s.ok("apply", "-refresh-only", "-auto-approve")
				_ = os.Truncate(c.logPath, 0)
				res = s.run("plan", "-detailed-exitcode", "-out=next.tfplan")
				if res.Code != 0 {
					t.Fatalf("plan of the recorded resourceVersion: exit %d, want 0:\n%s", res.Code, res.Output())
				}
				warnsOwnedBy(t, "plan of the recorded resourceVersion", res, "kubectl-create", "domain", "auth")
				refreshedByShortcut(t, c)
				if !strings.Contains(c.file("terraform.tfstate"), "admin login with password (sensitive value) verified") {
					t.Fatalf("the state does not hold DP's message redacted:\n%s", c.file("terraform.tfstate"))
				}
				s.scan("plans after the import")
			})
		}
	}
}

// TestAccApplication_KeyOfAnotherManagerBesideNoSettingsPlansCleanAndWarns:
// an Application this configuration applied with no settings (or with an
// empty map one level down) gets a key from another manager, as kubectl
// edit writes it (an Update operation). The next plans are clean, warn
// naming that manager on every refresh (the framework's, and the
// shortcut's once the resourceVersion is recorded), and the value is in no
// output and not in the state.
func TestAccApplication_KeyOfAnotherManagerBesideNoSettingsPlansCleanAndWarns(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs OpenTofu and the local control plane (TF_ACC=1)")
	}
	t.Parallel()
	cases := []struct {
		name, settings string
		added          map[string]any
		path           string
	}{
		{name: "no settings", settings: "", added: map[string]any{"tlsSecretName": "MARKER"}, path: "tlsSecretName"},
		{name: "empty map one level down", settings: "  settings = { auth = {} }",
			added: map[string]any{"auth": map[string]any{"password": "MARKER"}}, path: "auth.password"},
	}
	for cli, path := range clis(t) {
		for _, tc := range cases {
			t.Run(cli+"/"+tc.name, func(t *testing.T) {
				e := newAccEnv(t, withCLI(path))
				c := e.cli
				marker := "s" + randomHex(t, 10)
				s := &secretScan{t: t, c: c, e: e, needles: secretNeedles(marker), skipClusterStatus: true}
				c.write(e.config(tc.settings))
				s.ok("apply", "-auto-approve")
				t.Cleanup(func() { c.run(nil, "destroy", "-auto-approve") })

				raw, _ := json.Marshal(tc.added)
				var added map[string]any
				_ = json.Unmarshal([]byte(strings.ReplaceAll(string(raw), "MARKER", marker)), &added)
				e.editAs("kubectl-edit", "app", added)

				res := s.run("plan", "-detailed-exitcode")
				if res.Code != 0 {
					t.Fatalf("plan after another manager added a key: exit %d, want 0:\n%s", res.Code, res.Output())
				}
				warnsOwnedBy(t, "plan", res, "kubectl-edit", tc.path)
				s.ok("apply", "-refresh-only", "-auto-approve")
				_ = os.Truncate(c.logPath, 0)
				res = s.run("plan", "-detailed-exitcode", "-out=next.tfplan")
				if res.Code != 0 {
					t.Fatalf("plan of the recorded resourceVersion: exit %d, want 0:\n%s", res.Code, res.Output())
				}
				warnsOwnedBy(t, "plan of the recorded resourceVersion", res, "kubectl-edit", tc.path)
				refreshedByShortcut(t, c)
				s.scan("plans")
			})
		}
	}
}
