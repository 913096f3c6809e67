package application

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// The answers the protocol shortcuts (package fastpath) ask of the
// resource. They are checked against the framework's own pipeline by the
// contract tests in fastpath_*_test.go.

// PlanUnchanged reports whether ModifyPlan leaves a plan equal to the prior
// state alone: it does unless an update DP has not applied yet is pending,
// which ModifyPlan plans again. (The protocol shortcut of unchanged plans
// asks this.)
func (r *Resource) PlanUnchanged(private map[string][]byte) bool {
	return !privateFromMap(private).ApplyPending
}

// LeavesDestroyPlans reports that ModifyPlan does nothing with the plan of
// a destroy (its first step). (The protocol shortcut of destroy plans asks
// this.)
func (r *Resource) LeavesDestroyPlans() bool { return true }

// ReadUnchanged reports whether Read would return state and private data
// unchanged, and the identity Read sets, from the private state and the
// state's namespace and name alone. The private state records the UID and
// resourceVersion of the Application the state was last written from (by a
// create, an update or a refresh); an Application gets a new resourceVersion
// with every change of its spec, metadata or status, so one that still has
// both is the object the state was made from, and Read would make the same
// state of it again. Anything else is left to Read: a pending apply, an
// import, a state without the record (Read records it), another
// resourceVersion (Read records it, whether or not the state changes), or
// another UID. (The protocol shortcut of refreshes asks this.)
func (r *Resource) ReadUnchanged(ctx context.Context, attrs map[string]string, private map[string][]byte) (map[string]string, bool) {
	priv := privateFromMap(private)
	namespace, nsOK := attrs["namespace"]
	name, nameOK := attrs["name"]
	if priv.ApplyPending || priv.Imported || priv.UID == "" || priv.ResourceVersion == "" || !nsOK || !nameOK {
		return nil, false
	}
	if !r.sameVersion(ctx, attrs, priv) {
		return nil, false
	}
	return map[string]string{"namespace": namespace, "name": name}, true
}

// sameVersion reports whether the Application of the state still has the
// recorded UID and resourceVersion, and the refresh would own its labels and
// annotations as the state's writer did: a state without its own
// field_manager was written under the provider's, which this asks to be the
// default one.
func (r *Resource) sameVersion(ctx context.Context, attrs map[string]string, priv privateState) bool {
	if _, own := attrs["field_manager"]; !own && r.fieldManager(nil) != providerdata.DefaultFieldManager {
		return false
	}
	var diags diag.Diagnostics
	cl := providerdata.ClusterClient(ctx, r.data, &diags)
	if cl == nil {
		return false
	}
	obj, err := cl.GetApplication(ctx, attrs["namespace"], attrs["name"])
	return err == nil && string(obj.GetUID()) == priv.UID && obj.GetResourceVersion() == priv.ResourceVersion
}
