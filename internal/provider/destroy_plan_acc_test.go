package provider

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
