package application

import (
	"context"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// The answers the protocol shortcuts (package protocol) ask of the
// resource. They are checked against the framework's own pipeline by the
// contract tests in fastpath_*_test.go (the shortcuts of package protocol).

// PlanUnchanged reports whether ModifyPlan leaves a plan equal to the prior
// state alone: it does unless an update DP has not applied yet is pending,
// which ModifyPlan plans again. (The protocol shortcut of unchanged plans
// asks this.)
func (r *Resource) PlanUnchanged(private map[string][]byte) bool {
	return !privateFromMap(private).ApplyPending
}

// ReadUnchanged reports whether Read would return state and private data
// unchanged, the diagnostics Read would give then (the warning naming the
// settings other field managers own), and the identity Read sets, from the
// private state and the state's namespace and name alone. The private state
// records the UID and resourceVersion of the Application the state was last
// written from (by a create, an update or a refresh); an Application gets a
// new resourceVersion with every change of its spec, metadata or status, so
// one that still has both is the object the state was made from, and Read
// would make the same state of it again. Anything else is left to Read: a
// pending apply, an import, a state without the record (Read records it),
// another resourceVersion (Read records it, whether or not the state
// changes), another UID, a failed read. Once it has read the Application it
// hands the read over to Read in next, the context the call goes on with
// when the shortcut does not answer, so that one refresh reads once. (The
// protocol shortcut of refreshes asks this.)
func (r *Resource) ReadUnchanged(ctx context.Context, attrs map[string]string, private map[string][]byte) (
	identity map[string]string, diags diag.Diagnostics, next context.Context, ok bool,
) {
	priv := privateFromMap(private)
	namespace, nsOK := attrs["namespace"]
	name, nameOK := attrs["name"]
	if priv.ApplyPending || priv.Imported || priv.UID == "" || priv.ResourceVersion == "" || !nsOK || !nameOK {
		return nil, nil, ctx, false
	}
	manager, decided := r.unchangedManager(attrs)
	if !decided {
		return nil, nil, ctx, false
	}
	var cdiags diag.Diagnostics
	cl := providerdata.ClusterClient(ctx, r.data, &cdiags)
	if cl == nil {
		return nil, nil, ctx, false
	}
	obj, err := cl.GetApplication(ctx, namespace, name)
	next = handOver(ctx, namespace, name, obj, err)
	if err != nil || string(obj.GetUID()) != priv.UID || obj.GetResourceVersion() != priv.ResourceVersion {
		return nil, nil, next, false
	}
	// The diagnostics of Read's refresh of this object (fromObject's): a
	// refresh that named a field taken over from this configuration did not
	// record the resourceVersion, so here every field of others is one this
	// configuration does not set, whatever the state holds.
	m := importedModel(namespace, name)
	diags = readProjected(&m, obj, readOwners(obj, manager), false).named.warning(obj, manager)
	return map[string]string{"namespace": namespace, "name": name}, diags, next, true
}

// unchangedManager is the field manager of the state's refresh. decided is
// false when the state has no field_manager of its own and the provider's
// is not the default one: the state was written under the provider's, which
// may have owned other labels and annotations than the one configured now.
func (r *Resource) unchangedManager(attrs map[string]string) (manager string, decided bool) {
	if own := attrs["field_manager"]; own != "" {
		return own, true
	}
	if _, own := attrs["field_manager"]; !own && r.fieldManager(nil) != providerdata.DefaultFieldManager {
		return "", false
	}
	return r.fieldManager(nil), true
}

// handedRead is the read of an Application that the refresh shortcut made
// before it handed its call on to Read.
type handedRead struct {
	namespace, name string
	obj             *unstructured.Unstructured
	err             error
	taken           atomic.Bool
}

type handedReadKey struct{}

// handOver returns ctx carrying the read of namespace/name for Read.
func handOver(ctx context.Context, namespace, name string, obj *unstructured.Unstructured, err error) context.Context {
	return context.WithValue(ctx, handedReadKey{}, &handedRead{namespace: namespace, name: name, obj: obj, err: err})
}

// takeHandedRead returns the read the refresh shortcut handed over for
// namespace/name in ctx, once.
func takeHandedRead(ctx context.Context, namespace, name string) (*handedRead, bool) {
	h, ok := ctx.Value(handedReadKey{}).(*handedRead)
	if !ok || h.namespace != namespace || h.name != name || h.taken.Swap(true) {
		return nil, false
	}
	return h, true
}
