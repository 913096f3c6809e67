package application

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.readWithoutConfig(ctx, req, resp) {
		return
	}
	var state applicationModel
	resp.Diagnostics.Append(getModel(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	priv := readPrivate(ctx, req.Private)
	prior := state
	ref, diags := r.refresh(ctx, &state, priv)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The identity is set whether or not the Application is still there: a
	// client that sends none (Terraform and OpenTofu before 1.12) gets it
	// from Read, and the framework refuses a Read that leaves it unset, even
	// one that removes the resource from the state.
	if resp.Identity != nil {
		resp.Diagnostics.Append(resp.Identity.Set(ctx, applicationIdentity{Namespace: state.Namespace, Name: state.Name})...)
	}
	switch {
	case ref.gone:
		resp.State.RemoveResource(ctx)
		return
	case ref.foreign:
		resp.Diagnostics.AddWarning(fmt.Sprintf("Application %s/%s was replaced outside Terraform", state.Namespace.ValueString(), state.Name.ValueString()),
			fmt.Sprintf("The Application this state manages (UID %s) no longer exists; another Application of the same namespace and name "+
				"(UID %s) took its place. It is removed from the state and left alone: the next apply plans a create, which refuses "+
				"the existing Application. Import it to manage it.", priv.UID, ref.uid))
		resp.State.RemoveResource(ctx)
		return
	}
	// resp.State starts as the prior state: encoding an unchanged model again
	// is the costliest part of a refresh, so only a changed one is set.
	if !sameModel(&prior, &state) {
		resp.Diagnostics.Append(setModel(ctx, &resp.State, &state)...)
	}
	if next := ref.private(priv); !next.equal(priv) {
		resp.Diagnostics.Append(next.write(ctx, resp.Private)...)
	}
}

// refreshOutcome is what refresh found.
type refreshOutcome struct {
	gone    bool   // the Application no longer exists
	foreign bool   // an Application of another UID than the recorded one holds the name
	applied bool   // pending was set and DP has applied the current generation since
	uid     string // the Application's UID
	rv      string // its resourceVersion
	// retired are the retired sensitive paths DP's record may still hold
	// (privateState.settled), when settle is set.
	retired   []retiredPath
	takenOver []retiredPath
	settle    bool
}

// private is the private state after the refresh.
func (o refreshOutcome) private(priv privateState) privateState {
	if o.applied {
		priv.ApplyPending = false
	}
	if o.uid != "" {
		priv.UID = o.uid
	}
	if o.rv != "" {
		priv.ResourceVersion = o.rv
	}
	if o.settle {
		priv.RetiredPaths, priv.TakenOverPaths = o.retired, o.takenOver
	}
	return priv
}

// refresh updates state from the Application in the cluster (a GET, or the
// namespace LIST shared with other reads; or what the refresh shortcut read
// for this call before it handed the call on).
func (r *Resource) refresh(ctx context.Context, state *applicationModel, priv privateState) (out refreshOutcome, diags diag.Diagnostics) {
	namespace, name := state.Namespace.ValueString(), state.Name.ValueString()
	if got, ok := takeHandedRead(ctx, namespace, name); ok {
		return r.refreshFrom(ctx, state, priv, got.obj, got.err)
	}
	cl := providerdata.ClusterClient(ctx, r.data, &diags)
	if cl == nil {
		return out, diags
	}
	obj, err := cl.GetApplication(ctx, namespace, name)
	return r.refreshFrom(ctx, state, priv, obj, err)
}

// refreshFrom is refresh on the answer of the read of the Application.
func (r *Resource) refreshFrom(ctx context.Context, state *applicationModel, priv privateState, obj *unstructured.Unstructured, err error) (out refreshOutcome, diags diag.Diagnostics) {
	if apierrors.IsNotFound(err) {
		out.gone = true
		return out, diags
	}
	if err != nil {
		addReadError(&diags, readFailure{summary: fmt.Sprintf("Cannot read Application %s/%s", state.Namespace.ValueString(), state.Name.ValueString()),
			detail: err.Error(), err: err, kept: "It keeps its prior state in this run."})
		return out, diags
	}
	out.uid, out.rv = string(obj.GetUID()), obj.GetResourceVersion()
	if priv.UID != "" && out.uid != priv.UID {
		out.foreign = true
		return out, diags
	}
	if priv.ApplyPending {
		out.applied = dpclient.VerdictOf(obj, state.waitFor()).Done
	}
	priv = priv.settled(dpclient.AppliedGeneration(obj))
	out.retired, out.takenOver, out.settle = priv.RetiredPaths, priv.TakenOverPaths, true
	// DP's texts: without any value the state does not hold (redact.go);
	// fromObject adds the values of spec.settings it leaves out.
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	secrets := redactorOf(obj, priv, settings, nil)
	if priv.Imported {
		// Any value of spec.settings may be a secret: every one is kept out
		// of DP's texts, and none goes to the state unless import_settings
		// = "read" says the settings hold none.
		readDiags, _ := r.fromObjectRead(ctx, state, obj, nil, nil, r.fieldManager(state), secrets.Redact, true)
		diags.Append(readDiags...)
		if !r.readsImportedSettings() {
			withoutSecrets(state)
		}
		return out, diags
	}
	readDiags, takenOver := r.fromObjectRead(ctx, state, obj, priv.tracked(), priv.recordPaths(), r.fieldManager(state), secrets.Redact, false)
	diags.Append(readDiags...)
	if takenOver {
		// The warning depends on what the state holds: the refresh shortcut,
		// which does not read the state, leaves the next refresh to Read.
		out.rv = ""
	}
	return out, diags
}

// fromObject refreshes m from the Application in the cluster.
func (r *Resource) fromObject(ctx context.Context, m *applicationModel, obj *unstructured.Unstructured, manager string, redact func(string) string) diag.Diagnostics {
	diags, _ := r.fromObjectRead(ctx, m, obj, nil, nil, manager, redact, false)
	return diags
}

// fromObjectRead is fromObject reading the spec whole when whole is set (an
// import before its first apply), without the values at sensitivePaths, and
// DP's record without those at recordPaths too; takenOver reports that the warning names
// a field this configuration sets that another manager took over.
func (r *Resource) fromObjectRead(_ context.Context, m *applicationModel, obj *unstructured.Unstructured, sensitivePaths, recordPaths []sensitivePath, manager string, redact func(string) string, whole bool) (diags diag.Diagnostics, takenOver bool) {
	m.ID = types.StringValue(obj.GetNamespace() + "/" + obj.GetName())
	m.Name = types.StringValue(obj.GetName())
	m.Namespace = types.StringValue(obj.GetNamespace())

	var prior any
	if !m.Settings.IsNull() && !m.Settings.IsUnknown() {
		prior, _, _ = convert.FromDynamic(m.Settings)
	}
	back := readProjected(m, obj, readOwners(obj, manager), whole)
	diags.Append(back.named.warning(obj, manager)...)
	spec, foreignPaths := back.settings, back.settingsLeftOut
	salt := appSalt(obj.GetNamespace(), obj.GetName())
	settings := stripPaths(spec, resolvePaths(spec, sensitivePaths, salt), func(p []string) bool {
		v, ok := lookupPath(prior, p)
		return ok && isEmptyDoc(v)
	})
	switch {
	case !back.hasSettings || settings == nil:
		if prior == nil || isEmptyDoc(prior) {
			// keep null or {} as written
		} else {
			m.Settings = types.DynamicNull()
		}
	case isEmptyDoc(settings) && (m.Settings.IsNull() || isEmptyDoc(prior)):
		// {} in the cluster and null or {} in the state: no drift.
	default:
		if prior == nil || !jsonvalue.Equal(prior, settings) {
			m.Settings = convert.ToDynamic(settings)
		}
	}

	// DP's texts: without any value the state does not hold as settings.
	m.Status = appstatus.Read(obj, redactNotHeld(obj, settings, redact)).ResourceValue()
	m.LastAppliedSettings = lastAppliedValue(obj, appendForeignPaths(recordPaths, foreignPaths))
	if m.EffectiveSettings.IsNull() || m.EffectiveSettings.IsUnknown() {
		// Not computed by an apply: DP's record is the value once it is of
		// the current generation (appstatus.EffectiveSettings).
		m.EffectiveSettings = types.StringNull()
		if _, ok := appstatus.EffectiveSettings(obj); ok {
			m.EffectiveSettings = m.LastAppliedSettings
		}
	}
	m.LastAppliedSettings = lastAppliedStored(m.LastAppliedSettings, m.EffectiveSettings)
	setDefaults(m)
	return diags, len(back.named.takenOver) > 0
}
