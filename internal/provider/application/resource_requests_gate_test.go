package application

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// TestResourceRequests_DescriptionAndPageNameTheFeatureGate: DP applies
// spec.resourceRequests only when its controller runs with
// DECKHOUSE_ENABLE_RESOURCE_REQUESTS=true; the attribute's description and
// the resource page say so.
func TestResourceRequests_DescriptionAndPageNameTheFeatureGate(t *testing.T) {
	const gate = "DECKHOUSE_ENABLE_RESOURCE_REQUESTS=true"
	var resp resource.SchemaResponse
	NewResource().Schema(context.Background(), resource.SchemaRequest{}, &resp)
	a, ok := resp.Schema.Attributes["resource_requests"]
	if !ok {
		t.Fatal("no resource_requests attribute")
	}
	if !strings.Contains(a.GetMarkdownDescription(), gate) {
		t.Errorf("the description of resource_requests does not name %s:\n%s", gate, a.GetMarkdownDescription())
	}
	page, err := os.ReadFile("../../../templates/resources/application.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), gate) {
		t.Errorf("the resource page does not name %s", gate)
	}
}
