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
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// patchAs writes Application name of f's namespace as another writer:
// a server-side apply of spec by manager (force), or, with a merge patch
// (kubectl edit, kubectl patch), an Update operation of manager.
func (f *faultEnv) patchAs(manager, name string, pt k8stypes.PatchType, spec map[string]any) {
	f.t.Helper()
	obj := map[string]any{"spec": spec}
	if pt == k8stypes.ApplyPatchType {
		obj = map[string]any{"apiVersion": "deckhouse.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": name, "namespace": f.namespace}, "spec": spec}
	}
	body, _ := json.Marshal(obj)
	opts := metav1.PatchOptions{FieldManager: manager}
	if pt == k8stypes.ApplyPatchType {
		force := true
		opts.Force = &force
	}
	if _, err := f.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(f.namespace).Patch(context.Background(), name, pt, body, opts); err != nil {
		f.t.Fatal(err)
	}
}

// specAt is the value at path below the spec of Application name.
func (f *faultEnv) specAt(name string, path ...string) (any, bool) {
	f.t.Helper()
	obj, err := f.get(name)
	if err != nil {
		f.t.Fatal(err)
	}
	v, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, append([]string{"spec"}, path...)...)
	return v, ok
}

// One projection from the Application to the state, on every CLI: a
// kubectl patch of a settings key this configuration sets shows as drift
// (2 -> 1, not an added key), and the warning names kubectl-patch as its
// owner now; the spec fields the DP web interface sets beside this
// configuration (update.mode, release_channel, another resource_requests
// entry) stay out of the state, cause no diff and are named; the apply with
// force_conflicts takes replicas back and leaves the others' fields alone.
func TestAccOwnership_DriftShowsAndOthersSpecFieldsStayOut(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		body := `  settings = { replicas = 1 }
  resource_requests = [{ kind = "Deployment", name = "web", replicas = 2 }]
`
		f.cli.write(f.provider("") + f.app("x", "app", body))
		f.cli.must("apply", "-auto-approve")

		f.patchAs("kubectl-patch", "app", k8stypes.MergePatchType, map[string]any{"settings": map[string]any{"replicas": 2}})
		f.patchAs("web-ui", "app", k8stypes.ApplyPatchType, map[string]any{
			"releaseChannel": "Stable", "update": map[string]any{"mode": "Manual"},
			"resourceRequests": []any{map[string]any{"kind": "DaemonSet", "name": "agent"}},
		})
		res := f.cli.run(nil, "plan", "-detailed-exitcode")
		if res.Code != 2 || !outputHas(res, "replicas = 2 -> 1") {
			t.Fatalf("plan after kubectl patch: exit %d, want the drift replicas = 2 -> 1:\n%s", res.Code, res.Output())
		}
		for _, s := range []string{"Fields owned by other field managers", "settings.replicas (kubectl-patch)", "update.mode (web-ui)",
			"release_channel (web-ui)", `resource_requests[kind="DaemonSet",name="agent"] (web-ui)`} {
			if !outputHas(res, s) {
				t.Errorf("the plan's warning does not name %s:\n%s", s, res.Output())
			}
		}
		// The plan removes none of them (it did: mode, release_channel and the
		// entry were read whole into the state, and planned away).
		for _, s := range []string{"-> null", `name = "agent"`, `"Manual"`, `"Stable"`} {
			if outputHas(res, s) {
				t.Errorf("the plan changes another manager's field (%s):\n%s", s, res.Output())
			}
		}
		if strings.Contains(f.cli.file("terraform.tfstate"), "Manual") {
			t.Error("another manager's update.mode is in the state")
		}

		// The apply takes replicas back only with force_conflicts.
		res = f.cli.run(nil, "apply", "-auto-approve")
		if res.Code == 0 || !outputHas(res, "kubectl-patch") {
			t.Fatalf("apply over kubectl-patch's replicas: exit %d, want the conflict naming it:\n%s", res.Code, res.Output())
		}
		f.cli.write(f.provider("") + f.app("x", "app", body+"  force_conflicts = true\n"))
		f.cli.must("apply", "-auto-approve")
		if v, _ := f.specAt("app", "settings", "replicas"); v != int64(1) {
			t.Errorf("after the apply spec.settings.replicas = %v, want 1", v)
		}
		if v, _ := f.specAt("app", "update", "mode"); v != "Manual" {
			t.Errorf("the apply changed the web interface's update.mode: %v", v)
		}
		if v, _ := f.specAt("app", "releaseChannel"); v != "Stable" {
			t.Errorf("the apply changed the web interface's releaseChannel: %v", v)
		}
		if rr, _ := f.specAt("app", "resourceRequests"); len(rr.([]any)) != 2 {
			t.Errorf("the apply changed the web interface's resourceRequests entry: %v", rr)
		}
		f.cli.planClean()
	})
}

// settings = {} after settings that wrote keys is written as an empty
// object, on every CLI: the server-side apply alone, which empties the map
// it applied keys of, made the API server refuse it ("spec.settings in body
// must be of type object: null"). The next plan is clean.
func TestAccOwnership_EmptySettingsAfterKeysIsAnEmptyObject(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		f.cli.write(f.provider("") + f.app("x", "app", `  settings = { replicas = 2 }`))
		f.cli.must("apply", "-auto-approve")
		f.cli.write(f.provider("") + f.app("x", "app", `  settings = {}`))
		f.cli.must("apply", "-auto-approve")
		if v, ok := f.specAt("app", "settings"); !ok || !jsonEqualAny(v, map[string]any{}) {
			t.Fatalf("after settings = {} spec.settings = %v (present %v), want {}", v, ok)
		}
		f.cli.planClean()
	})
}

// A map this configuration stops writing keeps the key kubectl edit added
// under it, on every CLI: server-side apply removed the map with the key in
// it, and the apply exited 0 (a key another server-side apply manager added
// survived). The key stays out of the state and the next plan is clean.
func TestAccOwnership_AnotherWritersKeyUnderADroppedMapStays(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		if err := f.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{Repository: f.repository, Package: f.pkg,
			Version: "v2.0.0", SettingsSchema: []byte(`{"type":"object","properties":{"replicas":{"type":"integer"},` +
				`"podLabels":{"type":"object","additionalProperties":{"type":"string"}}}}`)}); err != nil {
			t.Fatal(err)
		}
		app := func(settings string) string {
			return f.provider("") + strings.Replace(f.app("x", "app", "  settings = "+settings), `"v1.0.0"`, `"v2.0.0"`, 1)
		}
		f.cli.write(app(`{ replicas = 2, podLabels = { team = "payments" } }`))
		f.cli.must("apply", "-auto-approve")
		f.patchAs("kubectl-edit", "app", k8stypes.MergePatchType, map[string]any{"settings": map[string]any{"podLabels": map[string]any{"owner": "edit-owner"}}})
		f.cli.write(app(`{ replicas = 2 }`))
		f.cli.must("apply", "-auto-approve")
		if v, _ := f.specAt("app", "settings", "podLabels", "owner"); v != "edit-owner" {
			t.Fatalf("the apply removed kubectl edit's podLabels.owner: %v", v)
		}
		if v, ok := f.specAt("app", "settings", "podLabels", "team"); ok {
			t.Errorf("podLabels.team, which the configuration no longer writes, is still there: %v", v)
		}
		f.cli.planClean()
		if strings.Contains(f.cli.file("terraform.tfstate"), "edit-owner") {
			t.Error("kubectl edit's value is in the state")
		}
	})
}

func jsonEqualAny(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return string(ab) == string(bb)
}
