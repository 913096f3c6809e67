package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/fastpath"
)

// The shortcuts answer for a configured provider only and know of no
// deferral: Configure must never defer, also with an unknown configuration.
func TestShortcuts_ProviderNeverDefers(t *testing.T) {
	ctx := context.Background()
	p := &DeckhouseProvider{version: "test"}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["host"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{
		Config:             tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, attrs)},
		ClientCapabilities: provider.ConfigureProviderClientCapabilities{DeferralAllowed: true},
	}, &resp)
	if resp.Deferred != nil {
		t.Fatal("Configure deferred: the protocol shortcuts do not handle a provider deferral")
	}
}

// The provider does not announce the PlanDestroy capability, with the
// shortcuts on or off, in either answer the CLIs read capabilities from:
// the CLIs then plan destroys themselves and send no PlanResourceChange for
// them. Every other capability is the framework's.
func TestProtocolServer_DoesNotAnnouncePlanDestroy(t *testing.T) {
	ctx := context.Background()
	framework := providerserver.NewProtocol6(&DeckhouseProvider{version: "test"})()
	fwSchema, err := framework.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || fwSchema.ServerCapabilities == nil {
		t.Fatalf("framework schema: %v", err)
	}
	for _, shortcuts := range []string{"", "off"} {
		t.Run("shortcuts "+shortcuts, func(t *testing.T) {
			t.Setenv(fastpath.EnvVar, shortcuts)
			s := ProtocolServer("test")()
			schema, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			meta, err := s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
			if err != nil {
				t.Fatal(err)
			}
			want := *fwSchema.ServerCapabilities
			want.PlanDestroy = false
			for name, got := range map[string]*tfprotov6.ServerCapabilities{"GetProviderSchema": schema.ServerCapabilities, "GetMetadata": meta.ServerCapabilities} {
				if got == nil || *got != want {
					t.Errorf("%s capabilities %+v, want %+v", name, got, want)
				}
			}
			if _, ok := s.(tfprotov6.ProviderServerWithListResource); !ok {
				t.Error("the server does not serve list resources")
			}
		})
	}
}

// recordingServer records the ApplyResourceChange request it gets.
type recordingServer struct {
	tfprotov6.ProviderServer
	got *tfprotov6.ApplyResourceChangeRequest
}

func (r *recordingServer) ApplyResourceChange(_ context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	r.got = req
	return &tfprotov6.ApplyResourceChangeResponse{}, nil
}

// A destroy the CLI planned itself comes without the identity the
// framework's destroy plan carried: the delete gets the prior state's, so
// that a failed delete keeps it in the state. Every other request goes on
// as it came.
func TestProtocolServer_DestroyPlannedByTheCLIKeepsThePriorIdentity(t *testing.T) {
	ctx := context.Background()
	var sresp resource.SchemaResponse
	application.NewResource().Schema(ctx, resource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	state := func(attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
		full := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			full[name] = tftypes.NewValue(at, nil)
		}
		for k, v := range attrs {
			full[k] = v
		}
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, full))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	null, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	prior := state(map[string]tftypes.Value{"namespace": tftypes.NewValue(tftypes.String, "ns"), "name": tftypes.NewValue(tftypes.String, "app")})
	given := &tfprotov6.ResourceIdentityData{IdentityData: &null}
	tests := []struct {
		name string
		req  *tfprotov6.ApplyResourceChangeRequest
		want map[string]string // nil: the request goes on as it came
	}{
		{name: "destroy without identity", want: map[string]string{"namespace": "ns", "name": "app"},
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: application.TypeName, PriorState: prior, PlannedState: &null, Config: &null}},
		{name: "destroy with identity",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: application.TypeName, PriorState: prior, PlannedState: &null, Config: &null, PlannedIdentity: given}},
		{name: "create",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: application.TypeName, PriorState: &null, PlannedState: prior, Config: prior}},
		{name: "update",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: application.TypeName, PriorState: prior, PlannedState: prior, Config: prior}},
		{name: "destroy of a state without a name",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: application.TypeName, PriorState: state(map[string]tftypes.Value{"namespace": tftypes.NewValue(tftypes.String, "ns")}), PlannedState: &null, Config: &null}},
		{name: "another type",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: "deckhouse_other", PriorState: prior, PlannedState: &null, Config: &null}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingServer{}
			s := withoutDestroyPlans{ProviderServer: rec, identities: applicationIdentities}
			if _, err := s.ApplyResourceChange(ctx, tt.req); err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if rec.got != tt.req {
					t.Fatalf("the request was changed: %+v", rec.got)
				}
				return
			}
			id := rec.got.PlannedIdentity
			if id == nil || id.IdentityData == nil {
				t.Fatal("no planned identity")
			}
			idType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"namespace": tftypes.String, "name": tftypes.String}}
			v, err := id.IdentityData.Unmarshal(idType)
			if err != nil {
				t.Fatal(err)
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				t.Fatal(err)
			}
			for k, want := range tt.want {
				var got string
				if err := attrs[k].As(&got); err != nil || got != want {
					t.Errorf("identity %s = %q, want %q", k, got, want)
				}
			}
			if rec.got.PlannedPrivate != nil || tt.req.PlannedIdentity != nil {
				t.Error("the request was changed beyond the planned identity")
			}
		})
	}
}

// What the CLIs' own destroy plan and withoutDestroyPlans give the delete
// is what the framework's destroy plan gave: the prior private state as it
// came and the identity of the prior state (namespace and name). A
// framework that put anything else in a destroy's plan fails this test.
func TestFrameworkBehaviour_DestroyPlanIsPriorPrivateAndIdentity(t *testing.T) {
	ctx := context.Background()
	t.Setenv(fastpath.EnvVar, "off")
	var sresp resource.SchemaResponse
	application.NewResource().Schema(ctx, resource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	full := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		full[name] = tftypes.NewValue(at, nil)
	}
	full["namespace"], full["name"] = tftypes.NewValue(tftypes.String, "ns"), tftypes.NewValue(tftypes.String, "app")
	prior, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, full))
	if err != nil {
		t.Fatal(err)
	}
	null, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	identity, ok := applicationIdentities[application.TypeName].of(&prior)
	if !ok {
		t.Fatal("no identity of the prior state")
	}
	private := []byte(`{"uid":"InUtMSI="}`)
	for _, priorIdentity := range []*tfprotov6.ResourceIdentityData{identity, nil} {
		resp, err := ProtocolServer("test")().PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: application.TypeName,
			PriorState: &prior, ProposedNewState: &null, Config: &null, PriorPrivate: private, PriorIdentity: priorIdentity})
		if err != nil || len(resp.Diagnostics) > 0 {
			t.Fatalf("framework's destroy plan: %v %+v", err, resp.Diagnostics)
		}
		if string(resp.PlannedPrivate) != string(private) {
			t.Errorf("planned private %s, want the prior %s", resp.PlannedPrivate, private)
		}
		if v, err := resp.PlannedState.Unmarshal(typ); err != nil || !v.IsNull() {
			t.Errorf("planned state %v (%v), want null", v, err)
		}
		if priorIdentity == nil {
			continue // a client without identity: nothing to keep
		}
		if resp.PlannedIdentity == nil || string(resp.PlannedIdentity.IdentityData.MsgPack) != string(identity.IdentityData.MsgPack) {
			t.Errorf("planned identity %+v, want the prior state's %+v", resp.PlannedIdentity, identity)
		}
	}
}
