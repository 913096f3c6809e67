package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// A refresh of several Applications of one namespace (one GET, then one
// LIST) still sees drift and deletions made outside OpenTofu.
func TestAccApplication_RefreshThroughTheNamespaceList(t *testing.T) {
	e := newAccEnv(t)
	var cfg strings.Builder
	cfg.WriteString(e.providerBlock())
	for _, name := range []string{"a", "b", "c"} {
		fmt.Fprintf(&cfg, `
resource "deckhouse_application" %q {
  name            = %q
  namespace       = %q
  package_name    = %q
  package_version = "v1.0.0"
  settings        = { replicas = 2 }
}
`, name, name, e.namespace, e.pkg)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e.checkDestroyed,
		Steps: []resource.TestStep{
			{Config: cfg.String()},
			{
				PreConfig: func() {
					ctx := context.Background()
					client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
					patch := []byte(`{"spec":{"settings":{"replicas":5}}}`)
					if _, err := client.Patch(ctx, "b", k8stypes.MergePatchType, patch, metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
						t.Fatal(err)
					}
					if err := client.Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
					waitDeleted(t, client, "c")
				},
				Config:             cfg.String(),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("deckhouse_application.a", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("deckhouse_application.b", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("deckhouse_application.c", plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

// waitDeleted waits until the object name is gone (its finalizers done).
func waitDeleted(t *testing.T, client dynamic.ResourceInterface, name string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := client.Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not deleted after a minute (last error: %v)", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
