package provider

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// specFieldsBody sets update and resource_requests, leaving the severity to
// DP's CRD default. It takes over fields others changed (the out-of-band
// change of the test is an update by another field manager).
const specFieldsBody = `  settings        = { replicas = 2 }
  force_conflicts = true
  update = {
    mode            = "Manual"
    windows         = [{ from = "8:00", to = "15:30", days = ["Mon", "Sat"] }]
    block_on_alerts = { enabled = true }
  }
  resource_requests = [
    {
      kind     = "Deployment"
      name     = "web"
      replicas = 3
      containers = [{
        name      = "app"
        resources = { limits = { cpu = "500m" }, requests = { memory = "128Mi" } }
      }]
    },
    { kind = "DaemonSet", name = "agent" },
  ]
`

// TestAccApplication_UpdateAndResourceRequests: update and resource_requests
// are written by server-side apply under DP's names, an omitted field is
// left to DP (the CRD's default severity is no drift), an out-of-band
// change shows as drift and the next apply restores the configuration, and
// an import reads both back (with no drift for the CRD's defaults). A
// configuration that breaks a CRD rule fails the plan naming the attribute.
// On every CLI.
func TestAccApplication_UpdateAndResourceRequests(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		ctx := context.Background()
		f.cli.write(f.provider("") + f.app("x", "spec", specFieldsBody))
		f.cli.must("apply", "-auto-approve")
		obj, err := f.get("spec")
		if err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]any{
			"update.mode": "Manual", "update.blockOnAlerts.severity": int64(4), "update.blockOnAlerts.enabled": true,
		} {
			if got, _, _ := unstructured.NestedFieldNoCopy(obj.Object, append([]string{"spec"}, strings.Split(path, ".")...)...); got != want {
				t.Errorf("spec.%s = %v, want %v", path, got, want)
			}
		}
		rr, _, _ := unstructured.NestedSlice(obj.Object, "spec", "resourceRequests")
		if len(rr) != 2 || rr[0].(map[string]any)["replicas"] != int64(3) || rr[1].(map[string]any)["kind"] != "DaemonSet" {
			t.Fatalf("spec.resourceRequests = %v", rr)
		}
		f.cli.planClean()

		// Out of band: another mode and another replica count.
		patch := `[{"op":"replace","path":"/spec/update/mode","value":"Auto"},{"op":"replace","path":"/spec/resourceRequests/0/replicas","value":5}]`
		if _, err := f.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(f.namespace).Patch(ctx, "spec", k8stypes.JSONPatchType,
			[]byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		res := f.cli.run(nil, "plan", "-detailed-exitcode")
		if res.Code != 2 || !outputHas(res, `mode = "Auto" -> "Manual"`) || !outputHas(res, "replicas = 5 -> 3") {
			t.Fatalf("plan after the out-of-band change: exit %d, want the drift of mode and replicas:\n%s", res.Code, res.Output())
		}
		f.cli.must("apply", "-auto-approve")
		if obj, err = f.get("spec"); err != nil {
			t.Fatal(err)
		}
		if mode, _, _ := unstructured.NestedString(obj.Object, "spec", "update", "mode"); mode != "Manual" {
			t.Fatalf("after the apply spec.update.mode = %q, want Manual", mode)
		}
		f.cli.planClean()

		// Import: both are read back.
		f.cli.must("state", "rm", "deckhouse_application.x")
		f.cli.must("import", "deckhouse_application.x", f.namespace+"/spec")
		show := f.cli.must("state", "show", "deckhouse_application.x")
		for _, want := range []string{`mode = "Manual"`, `from = "8:00"`, `kind = "Deployment"`, `replicas = 3`, `"cpu" = "500m"`, `kind = "DaemonSet"`} {
			if !outputHas(show, want) {
				t.Errorf("the imported state lacks %s:\n%s", want, show.Output())
			}
		}
		if outputHas(show, "severity") && !outputHas(show, "severity = null") {
			t.Errorf("the imported state holds the CRD's default severity:\n%s", show.Output())
		}
		res = f.cli.run(nil, "plan", "-no-color")
		if outputHas(res, "update = ") || outputHas(res, "resource_requests = ") || outputHas(res, "severity") {
			t.Errorf("the plan after the import changes update or resource_requests:\n%s", res.Output())
		}

		// A CRD rule broken in the configuration fails the plan at the attribute.
		f.cli.write(f.provider("") + f.app("x", "spec", strings.Replace(specFieldsBody, `{ kind = "DaemonSet", name = "agent" }`,
			`{ kind = "DaemonSet", name = "agent", replicas = 1 }`, 1)))
		res = f.cli.run(nil, "plan")
		if res.Code == 0 || !outputHas(res, "Replicas not allowed for this kind") || !outputHas(res, "resource_requests[1]") {
			t.Fatalf("plan with replicas of a DaemonSet: exit %d, want the CRD's rule:\n%s", res.Code, res.Output())
		}
	})
}
