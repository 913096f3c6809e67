package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestAccEphemeralApplication_ReadsSecretsIntoNoStateOrPlan reads a marker
// secret from one Application's settings through ephemeral
// "deckhouse_application" and, on OpenTofu and on Terraform, gives it to
// another Application's write-only sensitive_settings and to a
// precondition and a check block. The read happens (the other Application
// gets the marker; the precondition and the check pass, and fail when they
// expect another value), and the marker is in no state, no saved plan
// (`show -json` included), no file of the working folder, no output of the
// CLI and no log.
func TestAccEphemeralApplication_ReadsSecretsIntoNoStateOrPlan(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the CLIs and the local control plane (TF_ACC=1)")
	}
	for cli, path := range clis(t) {
		t.Run(cli, func(t *testing.T) {
			e := newAccEnv(t, withCLI(path))
			c := e.cli
			marker := "SECRET-" + randomHex(t, 12)
			e.seedApplication("app", e.pkg, map[string]any{"replicas": int64(2), "auth": map[string]any{"password": marker}})
			s := &secretScan{t: t, c: c, e: e, needles: secretNeedles(marker)}
			sum := sha256.Sum256([]byte(marker))
			digest := hex.EncodeToString(sum[:])

			// The configuration holds the marker's digest, never the marker.
			cfg := func(expectDigest string) string {
				return e.providerBlock() + fmt.Sprintf(`
ephemeral "deckhouse_application" "source" {
  namespace = %[1]q
  name      = "app"
}

locals {
  password = ephemeral.deckhouse_application.source.settings.auth.password
}

resource "deckhouse_application" "copy" {
  name                       = "copy"
  namespace                  = %[1]q
  package_name               = %[2]q
  package_version            = "v1.0.0"
  settings                   = { replicas = 1 }
  sensitive_settings         = { auth = { password = local.password } }
  sensitive_settings_version = "1"

  lifecycle {
    precondition {
      condition     = sha256(local.password) == %[3]q
      error_message = "The source's password is not the expected one."
    }
  }
}

check "source" {
  assert {
    condition     = ephemeral.deckhouse_application.source.status.state == "Ready" && ephemeral.deckhouse_application.source.effective_settings.replicas == 2 && sha256(local.password) == %[3]q
    error_message = "The source Application is not the expected one."
  }
}
`, e.namespace, e.pkg, expectDigest)
			}

			// 1. Plan into a file, then apply that plan.
			c.write(cfg(digest))
			res := s.ok("plan", "-out=create.tfplan")
			notWarned(t, "plan", res)
			res = s.ok("apply", "create.tfplan")
			notWarned(t, "apply", res)
			copyApp, err := e.get("copy")
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _ := unstructured.NestedString(copyApp.Object, "spec", "settings", "auth", "password"); got != marker {
				t.Fatalf("the copy's spec.settings.auth.password is not the source's: the ephemeral value did not reach sensitive_settings")
			}
			unstructured.RemoveNestedField(copyApp.Object, "spec", "settings")
			unstructured.RemoveNestedField(copyApp.Object, "status", "lastAppliedConfiguration")
			if b, _ := json.Marshal(copyApp.Object); s.holds(b) {
				t.Fatalf("the copy outside spec.settings holds the secret:\n%s", b)
			}
			s.scan("create")
			if s.plans != 1 || s.states != 1 {
				t.Fatalf("scanned %d saved plans and %d states, want 1 and 1", s.plans, s.states)
			}
			stateHoldsCopyAlone(t, c.file("terraform.tfstate"))

			// 2. The next plan opens the source again and finds nothing to do.
			res = s.run("plan", "-out=again.tfplan", "-detailed-exitcode")
			if res.Code != 0 {
				t.Fatalf("plan after apply exited %d, want 0 (no changes):\n%s", res.Code, res.Output())
			}
			notWarned(t, "plan after apply", res)
			s.scan("plan after apply")

			// 3. Expecting another password: the check warns and the
			// precondition fails, so the values read were the marker's.
			c.write(cfg(strings.Repeat("0", 64)))
			res = s.fails("plan")
			s.expect("wrong password", res, "The source's password is not the expected one.", "The source Application is not the expected one.")
			s.scan("wrong password")

			// 4. Destroy.
			c.write(cfg(digest))
			s.ok("destroy", "-auto-approve")
			s.scan("destroy")
			if s.plans < 2 || s.states < 3 {
				t.Fatalf("scanned %d saved plans and %d states, want at least 2 and 3", s.plans, s.states)
			}
		})
	}
}

// notWarned fails when a run reports a failed check or precondition.
func notWarned(t *testing.T, step string, res tofuResult) {
	t.Helper()
	if strings.Contains(res.Output(), "not the expected one") {
		t.Fatalf("%s: a check or precondition failed:\n%s", step, res.Output())
	}
}

// stateHoldsCopyAlone fails unless the state's only resource is the managed
// deckhouse_application.copy.
func stateHoldsCopyAlone(t *testing.T, state string) {
	t.Helper()
	var st struct {
		Resources []struct{ Mode, Type, Name string }
	}
	if err := json.Unmarshal([]byte(state), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Resources) != 1 || st.Resources[0].Mode != "managed" || st.Resources[0].Name != "copy" {
		t.Fatalf("the state holds %+v, want the managed deckhouse_application.copy alone", st.Resources)
	}
}
