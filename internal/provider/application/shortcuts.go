package application

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// The two answers the protocol shortcuts (package fastpath) ask of the
// resource. They are checked against the framework's own pipeline by the
// contract tests in fastpath_*_test.go.

// PlanUnchanged reports whether ModifyPlan leaves a plan equal to the prior
// state alone: it does unless an update DP has not applied yet is pending,
// which ModifyPlan plans again. (The protocol shortcut of unchanged plans
// asks this.)
func (r *Resource) PlanUnchanged(private map[string][]byte) bool {
	return !privateFromMap(private).ApplyPending
}

// ReadUnchanged refreshes the Application as Read does and reports whether
// Read would return state, identity and private data unchanged. A pending
// apply, an import, or a state without the UID is never unchanged: Read
// changes the private data then. (The protocol shortcut of refreshes asks
// this.)
func (r *Resource) ReadUnchanged(ctx context.Context, st tfsdk.State, identity tfsdk.ResourceIdentity, private map[string][]byte) bool {
	priv := privateFromMap(private)
	if priv.ApplyPending || priv.Imported || priv.UID == "" {
		return false
	}
	var state applicationModel
	if diags := st.Get(ctx, &state); diags.HasError() {
		return false
	}
	var id applicationIdentity
	if diags := identity.Get(ctx, &id); diags.HasError() || !id.Namespace.Equal(state.Namespace) || !id.Name.Equal(state.Name) {
		return false
	}
	prior := state
	ref, diags := r.refresh(ctx, &state, priv)
	return !ref.gone && !ref.foreign && len(diags) == 0 && sameModel(&prior, &state) && ref.private(priv).equal(priv)
}
