package protocol

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The server does not announce the PlanDestroy capability, with the
// shortcuts on or off, in either answer the CLIs read capabilities from: the
// CLIs then plan destroys themselves and send no PlanResourceChange for them.
// Every other capability is the framework's.
func TestServer_AnnouncesNoDestroyPlansAndServesLists(t *testing.T) {
	ctx := context.Background()
	for _, shortcuts := range []string{"", "off"} {
		t.Run("shortcuts "+shortcuts, func(t *testing.T) {
			t.Setenv(EnvVar, shortcuts)
			pp := newProbePair(t, &probeConfig{}, false)
			fw, err := pp.framework.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil || fw.ServerCapabilities == nil || !fw.ServerCapabilities.PlanDestroy {
				t.Fatalf("the framework's capabilities %+v (%v): the test no longer sees PlanDestroy announced", fw.ServerCapabilities, err)
			}
			schema, err := pp.shortcut.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			meta, err := pp.shortcut.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
			if err != nil {
				t.Fatal(err)
			}
			want := *fw.ServerCapabilities
			want.PlanDestroy = false
			for name, got := range map[string]*tfprotov6.ServerCapabilities{"GetProviderSchema": schema.ServerCapabilities, "GetMetadata": meta.ServerCapabilities} {
				if got == nil || *got != want {
					t.Errorf("%s capabilities %+v, want %+v", name, got, want)
				}
			}
			if _, ok := pp.shortcut.(tfprotov6.ProviderServerWithListResource); !ok {
				t.Error("the server does not serve list resources")
			}
		})
	}
}

// What the CLIs' own destroy plan and the server give the delete is what the
// framework's destroy plan gave: the framework plans the null state, the
// prior private state and the prior identity (a framework that put anything
// else in a destroy's plan fails this test), and a delete the CLI planned
// (the prior private state, no identity) answers through the server as the
// framework's delete of its own plan, also when it fails.
func TestFrameworkBehaviour_DestroyPlanIsPriorPrivateAndIdentity(t *testing.T) {
	ctx := context.Background()
	for name, cfg := range map[string]*probeConfig{"deleted": {}, "failed": {delete: noisy("Delete")}} {
		t.Run(name, func(t *testing.T) {
			pp := newProbePair(t, cfg, true)
			plan, err := pp.framework.PlanResourceChange(ctx, destroyPlanReq(t, true))
			if err != nil || len(plan.Diagnostics) > 0 {
				t.Fatalf("the framework's destroy plan: %v %s", err, diagString(plan.Diagnostics))
			}
			sameValue(t, "planned state", probeTyp, plan.PlannedState, probeNull(t))
			sameIdentity(t, plan.PlannedIdentity, probeIdentity(t, "a"))
			cliPlan := deleteReq(t, false) // PlannedPrivate = PriorPrivate, as the CLIs plan it
			if string(plan.PlannedPrivate) != string(cliPlan.PlannedPrivate) {
				t.Fatalf("planned private %q, want the prior %q", plan.PlannedPrivate, cliPlan.PlannedPrivate)
			}
			got, err := pp.shortcut.ApplyResourceChange(ctx, cliPlan)
			if err != nil {
				t.Fatal(err)
			}
			frameworkPlan := deleteReq(t, false)
			frameworkPlan.PlannedIdentity = plan.PlannedIdentity
			want, err := pp.framework.ApplyResourceChange(ctx, frameworkPlan)
			if err != nil {
				t.Fatal(err)
			}
			sameApply(t, got, want)
		})
	}
}

// recordingServer records the ApplyResourceChange request it gets.
type recordingServer struct {
	tfprotov6.ProviderServerWithListResource
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
func TestServer_DestroyPlannedByTheCLIKeepsThePriorIdentity(t *testing.T) {
	ctx := context.Background()
	prior, null := probeState(t), probeNull(t)
	given := probeIdentity(t, "given")
	tests := []struct {
		name string
		req  *tfprotov6.ApplyResourceChangeRequest
		want string // the planned identity's name; "": the request goes on as it came
	}{
		{name: "destroy without identity", want: "a",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: probeType, PriorState: prior, PlannedState: null, Config: null}},
		{name: "destroy with identity",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: probeType, PriorState: prior, PlannedState: null, Config: null, PlannedIdentity: given}},
		{name: "create",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: probeType, PriorState: null, PlannedState: prior, Config: prior}},
		{name: "update",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: probeType, PriorState: prior, PlannedState: prior, Config: prior}},
		{name: "destroy of a state without a name",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: probeType, PriorState: probeValue(t, map[string]tftypes.Value{"id": str("x")}), PlannedState: null, Config: null}},
		{name: "another type",
			req: &tfprotov6.ApplyResourceChangeRequest{TypeName: "probe_other", PriorState: prior, PlannedState: null, Config: null}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingServer{}
			s := New(rec, func() any { return nil }, Resource{TypeName: probeType, New: func() resource.Resource { return &probe{cfg: &probeConfig{}, calls: &calls{}} }})
			if _, err := s.ApplyResourceChange(ctx, tt.req); err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if rec.got != tt.req {
					t.Fatalf("the request was changed: %+v", rec.got)
				}
				return
			}
			sameIdentity(t, rec.got.PlannedIdentity, probeIdentity(t, tt.want))
			if rec.got.PlannedPrivate != nil || tt.req.PlannedIdentity != nil {
				t.Error("the request was changed beyond the planned identity")
			}
		})
	}
}
