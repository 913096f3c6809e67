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
	return len(private[privateApplyPending]) == 0
}

// ReadUnchanged refreshes the Application as Read does and reports whether
// Read would return state and private data unchanged, and the identity Read
// sets. A pending apply, an import, or a state without the UID is never
// unchanged: Read changes the private data then. (The protocol shortcut of
// refreshes asks this.)
func (r *Resource) ReadUnchanged(ctx context.Context, attrs map[string]string, decode func() (tfsdk.State, bool), private map[string][]byte) (map[string]string, bool) {
	if len(private[privateApplyPending]) > 0 || len(private[privateImported]) > 0 {
		return nil, false
	}
	uid, paths := private[privateUID], private[privateSensitivePaths]
	namespace, nsOK := attrs["namespace"]
	name, nameOK := attrs["name"]
	if len(uid) == 0 || !nsOK || !nameOK {
		return nil, false
	}
	identity := map[string]string{"namespace": namespace, "name": name}
	st, ok := decode()
	if !ok {
		return nil, false
	}
	var state applicationModel
	if diags := st.Get(ctx, &state); diags.HasError() {
		return nil, false
	}
	prior := state
	ref, diags := r.refresh(ctx, &state, decodePaths(paths), false, false)
	return identity, !ref.gone && len(diags) == 0 && sameModel(&prior, &state) && `"`+ref.uid+`"` == string(uid)
}
