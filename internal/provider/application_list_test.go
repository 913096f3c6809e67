package provider

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// TestAccListResource_ListsApplicationsThroughTheProtocol drives
// `list "deckhouse_application"` as `terraform query` does, through the
// provider's protocol server (protocol shortcuts included): the schema is
// announced, a namespace-and-package query yields one result per
// Application with its identity and, with include_resource, the resource as
// an import records it (no settings); without namespace every namespace is
// listed; the limit is honoured.
func TestAccListResource_ListsApplicationsThroughTheProtocol(t *testing.T) {
	e := newAccEnv(t)
	second := e.inNamespace("b")
	e.seedApplication("web", e.pkg, map[string]any{"domain": "not-listed.example.com"})
	e.seedApplication("api", e.pkg, nil)
	second.seedApplication("db", e.pkg, nil)
	if _, err := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace).Patch(context.Background(), "web", k8stypes.MergePatchType,
		[]byte(`{"spec":{"update":{"mode":"Manual"},"resourceRequests":[{"kind":"Deployment","name":"web","replicas":2}]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	srv, ok := ProtocolServer("test")().(tfprotov6.ProviderServerWithListResource) // what tf6server asks of a server in terraform-plugin-go v0.31
	if !ok {
		t.Fatal("the protocol server does not serve list resources")
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if schemas.ListResourceSchemas["deckhouse_application"] == nil {
		t.Fatalf("no list resource schema for deckhouse_application: %v", schemas.ListResourceSchemas)
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	if _, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		Config: providerConfig(t, map[string]tftypes.Value{"config_path": str(e.cp.KubeconfigPath())}),
	}); err != nil {
		t.Fatal(err)
	}
	resourceType := schemas.ResourceSchemas["deckhouse_application"].ValueType()
	identityType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"namespace": tftypes.String, "name": tftypes.String}}
	query := func(namespace string, limit int64) (names []string, resources []tftypes.Value) {
		t.Helper()
		cfgType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"namespace": tftypes.String, "package_name": tftypes.String}}
		ns := tftypes.NewValue(tftypes.String, nil)
		if namespace != "" {
			ns = str(namespace)
		}
		cfg, err := tfprotov6.NewDynamicValue(cfgType, tftypes.NewValue(cfgType, map[string]tftypes.Value{"namespace": ns, "package_name": str(e.pkg)}))
		if err != nil {
			t.Fatal(err)
		}
		stream, err := srv.ListResource(ctx, &tfprotov6.ListResourceRequest{
			TypeName: "deckhouse_application", Config: &cfg, IncludeResource: true, Limit: limit,
		})
		if err != nil {
			t.Fatal(err)
		}
		for r := range stream.Results {
			if len(r.Diagnostics) > 0 {
				t.Fatalf("diagnostics: %v", r.Diagnostics[0])
			}
			id, err := r.Identity.IdentityData.Unmarshal(identityType)
			if err != nil {
				t.Fatal(err)
			}
			var idv map[string]tftypes.Value
			var idNS, idName string
			_ = id.As(&idv)
			_ = idv["namespace"].As(&idNS)
			_ = idv["name"].As(&idName)
			if r.DisplayName != idNS+"/"+idName {
				t.Fatalf("display name %q, identity %s/%s", r.DisplayName, idNS, idName)
			}
			names = append(names, r.DisplayName)
			res, err := r.Resource.Unmarshal(resourceType)
			if err != nil {
				t.Fatal(err)
			}
			resources = append(resources, res)
		}
		return names, resources
	}

	names, resources := query(e.namespace, 0)
	if want := []string{e.namespace + "/api", e.namespace + "/web"}; !slices.Equal(names, want) {
		t.Fatalf("namespace query: %v, want %v", names, want)
	}
	for _, res := range resources {
		var attrs map[string]tftypes.Value
		_ = res.As(&attrs)
		var pkg string
		_ = attrs["package_name"].As(&pkg)
		if pkg != e.pkg || !attrs["settings"].IsNull() || !attrs["status"].IsKnown() || attrs["status"].IsNull() {
			t.Fatalf("resource: package_name %q, settings %v, status %v", pkg, attrs["settings"], attrs["status"])
		}
		var name string
		_ = attrs["name"].As(&name)
		if name == "web" {
			// update and resource_requests as an import records them.
			var update, request map[string]tftypes.Value
			var requests []tftypes.Value
			var mode string
			var replicas big.Float
			_ = attrs["update"].As(&update)
			_ = update["mode"].As(&mode)
			_ = attrs["resource_requests"].As(&requests)
			if len(requests) == 1 {
				_ = requests[0].As(&request)
				_ = request["replicas"].As(&replicas)
			}
			if r, _ := replicas.Int64(); mode != "Manual" || r != 2 {
				t.Fatalf("web: update %v, resource_requests %v", attrs["update"], attrs["resource_requests"])
			}
		}
	}
	if names, _ := query("", 0); !slices.Equal(names, []string{e.namespace + "/api", e.namespace + "/web", second.namespace + "/db"}) {
		t.Fatalf("every namespace: %v", names)
	}
	if names, _ := query("", 2); len(names) != 2 {
		t.Fatalf("limit 2: %v", names)
	}
}

// terraformQueryPath is a Terraform that runs `terraform query` (1.14 or
// later): DECKHOUSE_TEST_TERRAFORM_QUERY, else the toolchain's
// terraform-query (tools/bootstrap.sh terraform-query); "" when neither is
// there.
func terraformQueryPath() string {
	p := os.Getenv("DECKHOUSE_TEST_TERRAFORM_QUERY")
	if p == "" && os.Getenv("DECKHOUSE_TOOLS_BIN") != "" {
		p = filepath.Join(os.Getenv("DECKHOUSE_TOOLS_BIN"), "terraform-query")
	}
	if fi, err := os.Stat(p); p == "" || err != nil || fi.IsDir() {
		return ""
	}
	return p
}

// TestAccListResource_QueryGeneratesConfigAndImportBlocksThroughTerraform
// runs `terraform query -generate-config-out` on a `list
// "deckhouse_application"` block, as a team onboarding the Applications of
// a namespace would: it writes one resource block and one import block per
// Application of that package (no other namespace's, no settings value),
// and a plan of the generated configuration imports them all and creates
// nothing. With import_settings = "read" the blocks hold the cluster's
// settings and the plan imports them without a change.
func TestAccListResource_QueryGeneratesConfigAndImportBlocksThroughTerraform(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs Terraform 1.14 and the local control plane (TF_ACC=1)")
	}
	tf := terraformQueryPath()
	if tf == "" {
		t.Skip("no Terraform 1.14 or later: tools/bootstrap.sh terraform-query builds one, or set DECKHOUSE_TEST_TERRAFORM_QUERY")
	}
	e := newAccEnv(t, withCLI(tf))
	c := e.cli
	second := e.inNamespace("b")
	const marker = "listed-settings-value.example.com"
	e.seedApplication("web", e.pkg, map[string]any{"domain": marker})
	e.seedApplication("api", e.pkg, nil)
	second.seedApplication("db", e.pkg, nil)

	c.write(e.providerBlock())
	query := fmt.Sprintf("list \"deckhouse_application\" \"team\" {\n  provider = deckhouse\n  config {\n    namespace    = %q\n    package_name = %q\n  }\n}\n", e.namespace, e.pkg)
	if err := os.WriteFile(filepath.Join(c.dir, "onboard.tfquery.hcl"), []byte(query), 0o644); err != nil {
		t.Fatal(err)
	}
	res := c.must("query", "-no-color", "-generate-config-out=generated.tf")
	for _, want := range []string{e.namespace + "/web", e.namespace + "/api"} {
		if !outputHas(res, want) {
			t.Fatalf("terraform query does not list %s:\n%s", want, res.Output())
		}
	}
	generated := c.file("generated.tf")
	if strings.Count(generated, "resource \"deckhouse_application\"") != 2 || strings.Count(generated, "import {") != 2 {
		t.Fatalf("generated configuration: want 2 resource and 2 import blocks:\n%s", generated)
	}
	if strings.Contains(generated, second.namespace) || strings.Contains(generated, marker) || strings.Contains(res.Output(), marker) {
		t.Fatalf("the query listed another namespace or printed a settings value:\n%s\n%s", res.Output(), generated)
	}
	t.Logf("generated configuration:\n%s", generated)
	res = c.must("plan")
	if !outputHas(res, "2 to import, 0 to add") {
		t.Fatalf("plan of the generated configuration does not import both:\n%s", res.Output())
	}

	// With import_settings = "read" the generated blocks hold the settings
	// as they are in the cluster, and their plan imports without a change.
	if err := os.Remove(filepath.Join(c.dir, "generated.tf")); err != nil {
		t.Fatal(err)
	}
	c.write(strings.Replace(e.providerBlock(), "config_path", "import_settings = \"read\"\n  config_path", 1))
	c.must("query", "-no-color", "-generate-config-out=generated.tf")
	if generated := c.file("generated.tf"); !strings.Contains(generated, marker) {
		t.Fatalf("import_settings = \"read\": the generated configuration does not hold the settings:\n%s", generated)
	}
	res = c.must("plan")
	if !outputHas(res, "2 to import, 0 to add, 0 to change") {
		t.Fatalf("import_settings = \"read\": plan of the generated configuration is not import only:\n%s", res.Output())
	}
}
