package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// TestAccApplication_SettingsOfAnotherFieldManagerCauseNoDiffAndAreNeverShown:
// a second field manager adds a settings key (as the DP web interface
// would); the next plan is clean, warns naming the key and its manager,
// and the value appears in no output and not in the state; the plan still
// checks the document DP sees (a foreign key that makes a CEL rule fail
// fails it); an update of this configuration's own settings keeps the
// foreign keys in the cluster.
func TestAccApplication_SettingsOfAnotherFieldManagerCauseNoDiffAndAreNeverShown(t *testing.T) {
	e := newAccEnv(t, withCLI(""))
	c := e.cli
	c.write(e.config(`  settings = { replicas = 2 }`))
	c.must("apply", "-auto-approve")

	const marker = "foreign-tls-secret"
	apply := func(manager string, settings map[string]any) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{
			"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": "app", "namespace": e.namespace},
			"spec":     map[string]any{"settings": settings},
		})
		force := true
		if _, err := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace).Patch(context.Background(), "app",
			k8stypes.ApplyPatchType, body, metav1.PatchOptions{FieldManager: manager, Force: &force}); err != nil {
			t.Fatal(err)
		}
	}
	apply("web-ui", map[string]any{"tlsSecretName": marker})

	res := c.run(nil, "plan", "-detailed-exitcode")
	if res.Code != 0 {
		t.Fatalf("plan after another manager added a key: exit %d, want 0:\n%s", res.Code, res.Output())
	}
	if !outputHas(res, "Fields owned by other field managers") || !outputHas(res, "settings.tlsSecretName (web-ui)") {
		t.Fatalf("the plan does not name the foreign key and its manager:\n%s", res.Output())
	}
	if strings.Contains(res.Output(), marker) || strings.Contains(c.file("terraform.tfstate"), marker) {
		t.Fatal("the foreign value is in the plan output or the state")
	}

	// The plan checks the document DP sees: replicas = 5 passes alone (the
	// rule replicas <= maxReplicas sees no maxReplicas), and fails with the
	// maxReplicas = 4 another manager set.
	apply("web-ui", map[string]any{"tlsSecretName": marker, "maxReplicas": 4})
	c.write(e.config(`  settings = { replicas = 5 }`))
	res = c.run(nil, "plan")
	if res.Code == 0 || !outputHas(res, "replicas must not exceed maxReplicas") {
		t.Fatalf("the plan did not check the settings merged with the foreign keys: exit %d\n%s", res.Code, res.Output())
	}
	if strings.Contains(res.Output(), marker) {
		t.Fatal("the foreign value is in the output of the failed plan")
	}
	c.write(e.config(`  settings = { replicas = 3 }`))
	c.must("apply", "-auto-approve")
	obj, err := e.get("app")
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(obj.Object, "spec", "settings", "tlsSecretName"); got != marker {
		t.Fatalf("the update removed the foreign key: spec.settings.tlsSecretName = %q", got)
	}
	c.planClean()
	if strings.Contains(c.file("terraform.tfstate"), marker) {
		st := c.file("terraform.tfstate")
		i := strings.Index(st, marker)
		t.Fatalf("the foreign value is in the state after the update: ...%s...", st[max(0, i-600):i+40])
	}
	c.must("destroy", "-auto-approve")
}
