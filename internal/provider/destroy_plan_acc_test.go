package provider

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/faultproxy"
)

// The provider does not announce PlanDestroy, so the CLI plans a destroy
// itself and sends no PlanResourceChange for it; the plan it makes keeps the
// prior private state, whose UID the DELETE's precondition names. An
// Application replaced outside Terraform under the same name, which a
// destroy without refresh does not notice, is therefore left alone, and the
// other Application is deleted, on every CLI.
func TestAccDestroy_CLIPlansItAndTheDeleteKeepsTheUIDPrecondition(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		f.cli.write(f.provider("") + f.app("a", "app-a", "  settings = { replicas = 1 }") + f.app("b", "app-b", "  settings = { replicas = 1 }"))
		f.cli.must("apply", "-auto-approve")
		old, err := f.get("app-a")
		if err != nil {
			t.Fatal(err)
		}
		client := f.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(f.namespace)
		if err := client.Delete(context.Background(), "app-a", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if _, err := f.get("app-a"); apierrors.IsNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("app-a was not deleted")
			}
		}
		f.createAs("other-team", "app-a", map[string]any{"replicas": 2})
		newcomer, err := f.get("app-a")
		if err != nil || newcomer.GetUID() == old.GetUID() {
			t.Fatalf("re-created app-a: %v", err)
		}

		log := filepath.Join(f.cli.dir, "destroy.log")
		res := f.cli.run([]string{"TF_LOG_PATH=" + log, "TF_LOG_PROVIDER=TRACE"}, "destroy", "-auto-approve", "-refresh=false")
		if res.Code != 0 {
			t.Fatalf("destroy exited %d:\n%s", res.Code, res.Output())
		}
		got, err := f.get("app-a")
		if err != nil || got.GetUID() != newcomer.GetUID() || got.GetDeletionTimestamp() != nil {
			t.Fatalf("destroy touched the Application that replaced app-a: %v", err)
		}
		if _, err := f.get("app-b"); !apierrors.IsNotFound(err) {
			t.Fatalf("app-b after destroy: %v, want not found", err)
		}
		if n := f.proxy.Count(faultproxy.VerbDelete, "applications"); n != 2 {
			t.Fatalf("%d DELETE requests of Applications, want 2 (one refused by its UID precondition)", n)
		}
		plans, applies := providerRequests(f.cli.file("destroy.log"), "PlanResourceChange"), providerRequests(f.cli.file("destroy.log"), "ApplyResourceChange")
		if plans != 0 || applies != 2 {
			t.Fatalf("the provider received %d PlanResourceChange and %d ApplyResourceChange requests in the destroy, want 0 and 2", plans, applies)
		}
		if list := f.cli.must("state", "list"); strings.TrimSpace(list.Stdout) != "" {
			t.Fatalf("state after destroy:\n%s", list.Stdout)
		}
	})
}

// providerRequests counts the requests of an RPC the provider logged as
// received (terraform-plugin-go's TRACE line) in a CLI's log.
func providerRequests(log, rpc string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "Received request") && (strings.Contains(line, " tf_rpc="+rpc+" ") || strings.HasSuffix(line, " tf_rpc="+rpc)) {
			n++
		}
	}
	return n
}

// A destroy that fails (a finalizer past timeouts.delete) keeps the state,
// and on a CLI with resource identity the state keeps its identity: the
// CLI's own destroy plan carries none, and the delete gets the prior
// state's.
func TestAccDestroy_FailedDestroyKeepsTheIdentity(t *testing.T) {
	t.Parallel()
	forEachCLI(t, func(t *testing.T, f *faultEnv) {
		f.cli.write(f.provider("") + f.app("a", "app-a", "  settings = { replicas = 1 }\n  timeouts {\n    delete = \"2s\"\n  }"))
		f.cli.must("apply", "-auto-approve")
		client := f.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(f.namespace)
		hold := []byte(`{"metadata":{"finalizers":["packages.deckhouse.io/application","test.deckhouse.io/hold"]}}`)
		if _, err := client.Patch(context.Background(), "app-a", k8stypes.MergePatchType, hold, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			release := []byte(`{"metadata":{"finalizers":null}}`)
			_, _ = client.Patch(context.Background(), "app-a", k8stypes.MergePatchType, release, metav1.PatchOptions{})
		})
		before := stateIdentities(t, f.cli.file("terraform.tfstate"))
		res := f.cli.run(nil, "destroy", "-auto-approve")
		if res.Code == 0 || !outputHas(res, "Cannot delete Application") {
			t.Fatalf("destroy with a finalizer held: exit %d, want the delete's error:\n%s", res.Code, res.Output())
		}
		after := stateIdentities(t, f.cli.file("terraform.tfstate"))
		if len(after) != 1 {
			t.Fatalf("state after the failed destroy holds %d instances, want 1", len(after))
		}
		if strings.HasSuffix(t.Name(), "/tofu") && before[0] == "" {
			t.Fatal("OpenTofu stored no identity")
		}
		if before[0] != after[0] {
			t.Fatalf("identity after the failed destroy %q, before %q", after[0], before[0])
		}
		t.Logf("identity kept: %q", after[0])
	})
}

// stateIdentities returns the identity (JSON, "" when none) of each resource
// instance of a state file.
func stateIdentities(t *testing.T, state string) []string {
	t.Helper()
	var s struct {
		Resources []struct {
			Instances []struct {
				Identity json.RawMessage `json:"identity"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(state), &s); err != nil {
		t.Fatalf("state: %v", err)
	}
	var out []string
	for _, r := range s.Resources {
		for _, i := range r.Instances {
			out = append(out, string(i.Identity))
		}
	}
	return out
}
