package application

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// The two answers the protocol shortcuts (package fastpath) ask of the
// resource. They are checked against the framework's own pipeline by the
// contract tests in fastpath_*_test.go.

// privateResourceVersion is metadata.resourceVersion of the Application the
// state was last written from (by a create, an update or a refresh).
const privateResourceVersion = "resource_version"

// PlanUnchanged reports whether ModifyPlan leaves a plan equal to the prior
// state alone: it does unless an update DP has not applied yet is pending,
// which ModifyPlan plans again. (The protocol shortcut of unchanged plans
// asks this.)
func (r *Resource) PlanUnchanged(private map[string][]byte) bool {
	return len(private[privateApplyPending]) == 0
}

// ReadUnchanged reports whether Read would return state and private data
// unchanged, and the identity Read sets. A pending apply, an import, or a
// state without the UID is never unchanged: Read changes the private data
// then. When the private data records the resourceVersion the state was
// written from, and the Application in the cluster still has it (and the
// recorded UID), the state is what Read would make of it again, so the state
// is not decoded: an Application has a new resourceVersion after every
// change, of its spec, metadata or status. Otherwise the Application is
// refreshed as Read does and compared with the state. (The protocol shortcut
// of refreshes asks this.)
func (r *Resource) ReadUnchanged(ctx context.Context, attrs map[string]string, decode func() (tfsdk.State, bool), private map[string][]byte) (map[string]string, bool) {
	if len(private[privateApplyPending]) > 0 || len(private[privateImported]) > 0 {
		return nil, false
	}
	uid, paths := jsonString(private[privateUID]), private[privateSensitivePaths]
	namespace, nsOK := attrs["namespace"]
	name, nameOK := attrs["name"]
	if uid == "" || !nsOK || !nameOK {
		return nil, false
	}
	identity := map[string]string{"namespace": namespace, "name": name}
	if rv := jsonString(private[privateResourceVersion]); rv != "" {
		return identity, r.sameVersion(ctx, attrs, uid, rv)
	}
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
	return identity, !ref.gone && len(diags) == 0 && sameModel(&prior, &state) && ref.uid == uid
}

// sameVersion reports whether the Application of the state still has the
// UID and resourceVersion the state was written from, and the refresh would
// own its labels and annotations as the state's writer did: a state without
// its own field_manager was written under the provider's, which this asks to
// be the default one.
func (r *Resource) sameVersion(ctx context.Context, attrs map[string]string, uid, rv string) bool {
	if _, own := attrs["field_manager"]; !own && r.fieldManager(nil) != providerdata.DefaultFieldManager {
		return false
	}
	var diags diag.Diagnostics
	cl := providerdata.ClusterClient(ctx, r.data, &diags)
	if cl == nil {
		return false
	}
	obj, err := cl.GetApplication(ctx, attrs["namespace"], attrs["name"])
	return err == nil && string(obj.GetUID()) == uid && obj.GetResourceVersion() == rv
}

// jsonString decodes a private value holding a JSON string ("" otherwise).
func jsonString(b []byte) string {
	var s string
	if len(b) == 0 || json.Unmarshal(b, &s) != nil {
		return ""
	}
	return s
}
