package main

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The no-op provider serves the resource's schema without identity, and
// answers each RPC of a plan, apply and refresh with what it was given.
func TestNoop_ServesTheSchemaAndEchoesStates(t *testing.T) {
	ctx := context.Background()
	s := newServer()
	sch, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || sch.ResourceSchemas["deckhouse_application"] == nil {
		t.Fatalf("schema: %v, resources %v", err, sch.ResourceSchemas)
	}
	ids, _ := s.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if len(ids.IdentitySchemas) != 0 {
		t.Errorf("identity schemas %v, want none", ids.IdentitySchemas)
	}
	up, err := s.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: "deckhouse_application", RawState: &tfprotov6.RawState{JSON: []byte(`{"name":"app","namespace":"demo","gone":1}`)},
	})
	if err != nil || up.UpgradedState == nil {
		t.Fatalf("upgrade: %v %v", err, up)
	}
	plan, _ := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{ProposedNewState: up.UpgradedState, PriorPrivate: []byte(`{}`)})
	if plan.PlannedState != up.UpgradedState || string(plan.PlannedPrivate) != `{}` {
		t.Error("plan is not the proposed state")
	}
	applied, _ := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{PlannedState: plan.PlannedState})
	if applied.NewState != plan.PlannedState {
		t.Error("apply is not the planned state")
	}
	read, _ := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{CurrentState: applied.NewState})
	if read.NewState != applied.NewState {
		t.Error("refresh is not the current state")
	}
}
