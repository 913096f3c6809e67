package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// secretConfig is a configuration whose sensitive_settings take
// auth.password from an ephemeral variable that may be left unset (null),
// as in a CI job that does not give it.
func secretConfig(e *appEnv, labels string) string {
	return `variable "secret" {
  type      = string
  ephemeral = true
  default   = null
}

` + e.providerBlock() + fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name                       = "app"
  namespace                  = %q
  package_name               = %q
  package_version            = "v1.0.0"
  settings                   = { replicas = 1 }
  labels                     = %s
  sensitive_settings         = { auth = { password = var.secret } }
  sensitive_settings_version = "1"
}
`, e.namespace, e.pkg, labels)
}

// A labels-only update in a run that does not give the secret variable is
// refused (server-side apply would delete the secret), and the secret stays
// in the cluster; with the variable it applies and keeps the secret.
func TestAccTrust_LabelsOnlyUpdateWithoutTheSecretKeepsIt(t *testing.T) {
	e := newAccEnv(t, withCLI(""))
	c := e.cli
	marker := "SECRET-" + randomHex(t, 10)
	withSecret := []string{"TF_VAR_secret=" + marker}
	password := func(step string) {
		t.Helper()
		obj, err := e.get("app")
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := unstructured.NestedString(obj.Object, "spec", "settings", "auth", "password"); got != marker {
			t.Fatalf("%s: the secret is no longer in the cluster", step)
		}
	}
	c.write(secretConfig(e, "{}"))
	if res := c.run(withSecret, "apply", "-auto-approve"); res.Code != 0 {
		t.Fatalf("create: exit %d\n%s", res.Code, res.Output())
	}
	password("create")

	// Nothing changed, no variable: nothing to do.
	if res := c.run(nil, "plan", "-detailed-exitcode"); res.Code != 0 {
		t.Fatalf("unchanged plan without the variable: exit %d, want 0\n%s", res.Code, res.Output())
	}
	// A labels-only change, no variable: refused.
	c.write(secretConfig(e, `{ team = "payments" }`))
	res := c.run(nil, "apply", "-auto-approve")
	if res.Code == 0 || !outputHas(res, "Secrets would be removed") || !outputHas(res, "auth.password") {
		t.Fatalf("labels-only apply without the secret: exit %d, want the removal guard\n%s", res.Code, res.Output())
	}
	if strings.Contains(res.Output(), marker) {
		t.Fatal("the output holds the secret")
	}
	password("labels-only update without the secret")
	// With the variable: applied, secret kept.
	if res := c.run(withSecret, "apply", "-auto-approve"); res.Code != 0 {
		t.Fatalf("labels-only apply with the secret: exit %d\n%s", res.Code, res.Output())
	}
	password("labels-only update with the secret")
	if obj, _ := e.get("app"); obj.GetLabels()["team"] != "payments" {
		t.Fatal("the label was not written")
	}
	c.run(withSecret, "destroy", "-auto-approve")
}

// An Application deleted outside Terraform and created again under the
// same name (another UID) is not the one the state manages: the refresh of
// destroy drops it from the state with a warning, and destroy leaves it.
func TestAccTrust_DestroyLeavesARecreatedForeignApplication(t *testing.T) {
	e := newAccEnv(t, withCLI(""))
	c := e.cli
	c.write(e.config(`  settings = { replicas = 1 }`))
	c.must("apply", "-auto-approve")
	old, err := e.get("app")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	if err := client.Delete(ctx, "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if _, err := e.get("app"); apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the Application was not deleted")
		}
	}
	body := []byte(fmt.Sprintf(`{"apiVersion":"deckhouse.io/v1alpha1","kind":"Application","metadata":{"name":"app","namespace":%q},`+
		`"spec":{"packageName":%q,"packageVersion":"v1.0.0","packageRepositoryName":%q,"settings":{"replicas":2}}}`, e.namespace, e.pkg, e.repository))
	force := true
	if _, err := client.Patch(ctx, "app", k8stypes.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "other-team", Force: &force}); err != nil {
		t.Fatal(err)
	}
	newcomer, err := e.get("app")
	if err != nil || newcomer.GetUID() == old.GetUID() {
		t.Fatalf("re-created Application: %v (same UID: %v)", err, err == nil && newcomer.GetUID() == old.GetUID())
	}
	c.must("destroy", "-auto-approve")
	if !strings.Contains(c.file(".tofu.log"), "replaced outside Terraform") {
		t.Fatal("the refresh of destroy did not warn about the newcomer")
	}
	got, err := e.get("app")
	if err != nil || got.GetUID() != newcomer.GetUID() || got.GetDeletionTimestamp() != nil {
		t.Fatalf("destroy touched the newcomer: %v", err)
	}
	_ = client.Delete(ctx, "app", metav1.DeleteOptions{})
}

// A DP message that quotes the secret URL-encoded (a DSN with a generated
// password), base64-encoded, a number secret in exponent form, and a map key
// given in sensitive_settings leave no trace in the state, plans, output,
// log or working folder: the refresh records the message redacted.
func TestAccSecrets_EncodedFormsLeaveNoTrace(t *testing.T) {
	marker := "S3cr/t+" + randomHex(t, 10) + ":@x"
	key := "tenant-" + randomHex(t, 8)
	const limit = 7310531
	e := newAccEnv(t, withCLI("", "TF_VAR_secret="+marker, "TF_VAR_key="+key, fmt.Sprintf("TF_VAR_limit=%d", limit)))
	c := e.cli
	publishSchema(e, "v1.2.0", "demo-settings-tokens.yaml")
	needles := secretNeedles(marker)
	needles = append(needles, []byte("7.310531e+06"), []byte("7.310531E+06"), []byte(fmt.Sprint(limit)))
	s := &secretScan{t: t, c: c, e: e, needles: needles, keyNeedles: secretNeedles(key), skipClusterStatus: true}
	c.write(`variable "secret" {
  type      = string
  ephemeral = true
}
variable "key" {
  type      = string
  ephemeral = true
}
variable "limit" {
  type      = number
  ephemeral = true
}

` + e.providerBlock() + fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name                       = "app"
  namespace                  = %q
  package_name               = %q
  package_version            = "v1.2.0"
  settings                   = { replicas = 1 }
  sensitive_settings         = { auth = { password = var.secret }, tokens = { (var.key) = "v" }, limit = var.limit }
  sensitive_settings_version = "1"
}
`, e.namespace, e.pkg))
	s.ok("apply", "-auto-approve")
	s.scan("create")

	// DP reports a failure quoting the secret in every form.
	msg := "connect postgres://app:" + url.QueryEscape(marker) + "@db/app: refused; basic " +
		base64.StdEncoding.EncodeToString([]byte("app:"+marker)) + "; limit 7.310531e+06; token " + key
	setStatusMessage(t, e, msg)
	s.ok("plan", "-out=refresh.tfplan")
	s.scan("plan after the message")
	s.ok("apply", "-refresh-only", "-auto-approve")
	s.scan("refresh")
	if state := c.file("terraform.tfstate"); !strings.Contains(state, "(sensitive value)") {
		t.Fatal("the refreshed state holds no redacted DP message: the message did not reach the provider")
	}
	s.ok("destroy", "-auto-approve")
	s.scan("destroy")
}

// setStatusMessage puts msg into status.summary.message and the message of
// every condition of the test's Application.
func setStatusMessage(t *testing.T, e *appEnv, msg string) {
	t.Helper()
	ctx := context.Background()
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		obj, err := client.Get(ctx, "app", metav1.GetOptions{})
		if err == nil {
			_ = unstructured.SetNestedField(obj.Object, msg, "status", "summary", "message")
			conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok {
					m["message"] = msg
				}
			}
			_ = unstructured.SetNestedSlice(obj.Object, conds, "status", "conditions")
			if _, err = client.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("setting the status message: %v", err)
		}
	}
}
