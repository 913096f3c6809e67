package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestMoveState_FromKubernetesManifestMapsMetadataAndSpecAndKeepsNoSettings:
// `moved` from a kubernetes_manifest holding an Application (its state as
// hashicorp/kubernetes stores it, dynamic values with their type) yields a
// deckhouse_application with the Application's namespace, name and package,
// its identity, no settings (the import rules: any value may be a secret)
// and the imported mark; a manifest of another kind, and another source
// type, are refused.
func TestMoveState_FromKubernetesManifestMapsMetadataAndSpecAndKeepsNoSettings(t *testing.T) {
	ctx := context.Background()
	srv := ProtocolServer("test")()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	const app = `{"apiVersion":"deckhouse.io/v1alpha1","kind":"Application",` +
		`"metadata":{"name":"web","namespace":"team-a","labels":{"team":"a"}},` +
		`"spec":{"packageName":"demo-app","packageVersion":"v1.2.0","packageRepositoryName":"main","settings":{"password":"MOVE-SECRET","replicas":2},` +
		`"update":{"mode":"Manual"},"resourceRequests":[{"kind":"Deployment","name":"web","replicas":2}]}}`
	state := func(manifest string) []byte {
		return []byte(`{"manifest":{"value":` + manifest + `,"type":["object",{}]},"object":{"value":` + manifest + `,"type":["object",{}]},` +
			`"field_manager":[],"wait":[],"timeouts":null,"computed_fields":null,"wait_for":null}`)
	}
	move := func(sourceType, manifest string) *tfprotov6.MoveResourceStateResponse {
		t.Helper()
		resp, err := srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
			SourceProviderAddress: "registry.terraform.io/hashicorp/kubernetes",
			SourceTypeName:        sourceType,
			SourceSchemaVersion:   1,
			SourceState:           &tfprotov6.RawState{JSON: state(manifest)},
			TargetTypeName:        "deckhouse_application",
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	resp := move("kubernetes_manifest", app)
	if len(resp.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %s: %s", resp.Diagnostics[0].Summary, resp.Diagnostics[0].Detail)
	}
	v, err := resp.TargetState.Unmarshal(schemas.ResourceSchemas["deckhouse_application"].ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	_ = v.As(&attrs)
	want := map[string]string{"id": "team-a/web", "namespace": "team-a", "name": "web", "package_name": "demo-app",
		"package_version": "v1.2.0", "package_repository_name": "main", "immutable_field_change": "error", "wait_for": "ConfigurationApplied"}
	for k, w := range want {
		var got string
		_ = attrs[k].As(&got)
		if got != w {
			t.Errorf("%s = %q, want %q", k, got, w)
		}
	}
	var update map[string]tftypes.Value
	var requests []tftypes.Value
	var mode string
	_ = attrs["update"].As(&update)
	_ = update["mode"].As(&mode)
	_ = attrs["resource_requests"].As(&requests)
	if mode != "Manual" || len(requests) != 1 {
		t.Errorf("update %v, resource_requests %v: want them moved", attrs["update"], attrs["resource_requests"])
	}
	for _, k := range []string{"settings", "effective_settings", "last_applied_settings"} {
		if !attrs[k].IsNull() {
			t.Errorf("%s = %v, want null", k, attrs[k])
		}
	}
	if strings.Contains(string(resp.TargetPrivate), "MOVE-SECRET") || !strings.Contains(string(resp.TargetPrivate), "imported") {
		t.Errorf("private state: %s", resp.TargetPrivate)
	}
	if resp.TargetIdentity == nil || resp.TargetIdentity.IdentityData == nil {
		t.Error("no identity")
	}

	resp = move("kubernetes_manifest", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"y"}}`)
	if len(resp.Diagnostics) == 0 || !strings.Contains(resp.Diagnostics[0].Detail, "v1 ConfigMap") {
		t.Fatalf("a ConfigMap was moved: %+v", resp.Diagnostics)
	}
	if resp = move("kubernetes_config_map_v1", app); len(resp.Diagnostics) == 0 {
		t.Fatal("a kubernetes_config_map_v1 was moved")
	}
}
