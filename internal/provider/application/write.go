package application

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// Create writes a new Application. When the write landed but DP's verdict
// did not come (rejected, timed out, the wait failed), no state is recorded
// and the Application is left in place with the annotation
// dpclient.AnnotationPendingCreate: the next apply plans a create again, and
// that create adopts it, so a failed create never becomes a tainted resource
// that the next apply would delete and install again.
//
// It reads the plan and the configuration's sensitive_settings from their
// values directly, and records the plan with only the attributes of
// createFills encoded again (recordCreate): the framework's Get, GetAttribute
// and Set would find the model's fields by reflection and convert every
// value once more, for each of many Applications.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan applicationModel
	resp.Diagnostics.Append(getModel(ctx, req.Plan, &plan)...)
	sensitive, diags := sensitiveConfig(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	w := r.createWithin(ctx, &plan, sensitive)
	w.over = req.Plan.Raw
	resp.Diagnostics.Append(w.record(ctx, &plan, &resp.State, resp.Private, resp.Identity)...)
}

// createWithin creates within the create timeout.
func (r *Resource) createWithin(ctx context.Context, plan *applicationModel, sensitive types.Dynamic) writeOutcome {
	ctx, cancel := context.WithTimeout(ctx, plan.timeout(ctx, "create", defaultCreateTimeout))
	defer cancel()
	return r.create(ctx, plan, sensitive)
}

// Update writes the Application again. When DP's verdict does not come, the
// state records what was written with an error, and the private state's
// ApplyPending makes the next plan show an update until DP has applied it.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state applicationModel
	resp.Diagnostics.Append(getModel(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(getModel(ctx, req.State, &state)...)
	var sensitive types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sensitive_settings"), &sensitive)...)
	if resp.Diagnostics.HasError() {
		return
	}
	priv := readPrivate(ctx, req.Private)
	if !priv.ApplyPending && !specChanged(&plan, &state) && !writesMetadata(&plan, &state) {
		// Only provider-side arguments (wait, timeouts, modes) changed.
		copyComputed(&plan, &state)
		resp.Diagnostics.Append(setModel(ctx, &resp.State, &plan)...)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, plan.timeout(ctx, "update", defaultUpdateTimeout))
	defer cancel()
	w := r.update(ctx, &plan, &state, sensitive, priv)
	resp.Diagnostics.Append(w.record(ctx, &plan, &resp.State, resp.Private, resp.Identity)...)
}

// writeOutcome is what a create or an update did.
type writeOutcome struct {
	diags    diag.Diagnostics
	recorded bool // the plan model holds the state to record
	// private is the private state to store: always when recorded, and
	// also when privateChanged (an update that may have landed).
	private        privateState
	privateChanged bool
	// over is the planned state of a create, which the plan model was
	// decoded from: the state recorded is it with the attributes of
	// createFills encoded again (a zero value: every attribute encoded).
	over tftypes.Value
}

// record returns a write's diagnostics and, when the write was recorded,
// stores plan as the new state, the private data and the identity.
func (w *writeOutcome) record(ctx context.Context, plan *applicationModel, state *tfsdk.State, private privateSetter, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	diags := w.diags
	if w.recorded || w.privateChanged {
		diags.Append(w.private.write(ctx, private)...)
	}
	if !w.recorded {
		return diags
	}
	if w.over.Type() != nil {
		diags.Append(setModelOver(ctx, state, w.over, plan)...)
	} else {
		diags.Append(setModel(ctx, state, plan)...)
	}
	if identity != nil {
		diags.Append(setIdentity(ctx, identity, plan)...)
	}
	return diags
}

// writeRequest is one write of an Application, prepared: the checks the
// apply runs have passed and the apply configuration is built.
type writeRequest struct {
	cl          *dpclient.Client
	plan, prior *applicationModel // prior nil for a create
	private     privateState      // of the prior state
	settings    any
	sensitive   any
	secrets     *redactor
	declared    declaredFunc // the settings schema's properties, when the apply ran the checks
	body        map[string]any
	removeFirst []dpclient.RemovedField // removed before the apply (emptiedFields)
	// takenOver are the settings paths another manager owned before the
	// write (privateState.TakenOverPaths).
	takenOver [][]string
	opts      dpclient.ApplyOptions
	who       string
}

// prepareWrite decodes the values of a write and runs the checks an apply
// runs before it writes: the secret-removal guard (an update), and DP's
// checks when the plan could not run them all (package version not
// published yet, cluster unreachable, values or the provider configuration
// unknown at plan) or when sensitive_settings is given (its values may have
// been unknown at plan, and are never in the plan to compare).
func (r *Resource) prepareWrite(ctx context.Context, plan, prior *applicationModel, sensitiveVal types.Dynamic, priv privateState) (*writeRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	cl := providerdata.ClusterClient(ctx, r.data, &diags)
	if cl == nil {
		return nil, diags
	}
	wr := &writeRequest{cl: cl, plan: plan, prior: prior, private: priv,
		who: fmt.Sprintf("Application %s/%s", plan.Namespace.ValueString(), plan.Name.ValueString())}
	settings, _, err := convert.FromDynamic(plan.Settings)
	if err != nil {
		diags.AddAttributeError(path.Root("settings"), "Invalid settings", err.Error())
		return nil, diags
	}
	if _, ok := settings.(map[string]any); settings != nil && !ok {
		diags.AddAttributeError(path.Root("settings"), "Invalid settings", "settings must be an object.")
		return nil, diags
	}
	wr.settings = settings
	if wr.sensitive, diags = decodeSensitive(sensitiveVal, false); diags.HasError() {
		return nil, diags
	}
	wr.secrets = newRedactor(wr.sensitive)
	if prior != nil {
		diags.Append(removalGuard(plan, prior, wr.sensitive, priv, false)...)
		if diags.HasError() {
			return nil, diags
		}
	}
	repoUnresolved := plan.PackageRepositoryName.IsUnknown() || plan.PackageRepositoryName.IsNull()
	effectiveUnknown := plan.EffectiveSettings.IsUnknown()
	if repoUnresolved || effectiveUnknown || wr.sensitive != nil {
		ci := checkInputFromModel(plan, prior, settings, wr.sensitive)
		if prior != nil && priv.Imported {
			if err := previousFromCluster(ctx, cl, &ci); err != nil {
				diags.AddError("Cannot read "+wr.who, "The update checks after an import compare with the settings DP applied last: "+err.Error()+".")
				return nil, diags
			}
			wr.secrets = newRedactor(wr.sensitive, ci.previous)
		}
		out := r.checkAtApply(ctx, cl, ci)
		wr.declared = out.declared
		wr.secrets = wr.secrets.WithKeys(undeclaredKeys(wr.sensitive, out.declared))
		diags.Append(wr.secrets.Diagnostics(out.diags)...)
		if diags.HasError() {
			return nil, diags
		}
		if repoUnresolved {
			plan.PackageRepositoryName = types.StringValue(out.repository)
		}
		if effectiveUnknown && out.effective != nil {
			// Else the checks did not run (settings_checks = "warning"
			// against a schema DP's runtime refuses): DP decides, and
			// effective_settings is its record once it has applied them.
			plan.EffectiveSettings = convert.ToJSONString(out.effective)
		}
	}
	merged := settings
	if wr.sensitive != nil {
		merged = engine.Merge(settings, wr.sensitive)
	}
	// A project default the plan showed that changed since: refused before
	// the write (grantdefaults.go).
	if diags.Append(wr.secrets.Diagnostics(checkGrantDefaultsAtWrite(ctx, cl, plan, prior, merged))...); diags.HasError() {
		return nil, diags
	}
	wr.body = applyConfiguration(plan, writtenSettings(prior == nil, merged))
	if prior != nil {
		r.keepOthersFields(ctx, wr)
	}
	// The first write after an import takes over the fields this
	// configuration sets from the manager that wrote the Application (kubectl
	// create, the DP web interface, kubernetes_manifest): the import made it
	// this resource's. Server-side apply forces only the fields of the apply
	// configuration; keys this configuration does not set stay the other
	// manager's.
	takeOver := prior != nil && priv.Imported
	wr.opts = dpclient.ApplyOptions{FieldManager: r.fieldManager(plan), Force: r.forceConflicts(plan) || takeOver, Create: prior == nil}
	return wr, diags
}

// writtenSettings is the settings a write sends: a create sends no empty
// document, since one that adopts its own earlier create (its reply lost, or
// its wait timed out) would empty the keys that create wrote, which the API
// server refuses as null.
func writtenSettings(create bool, merged any) any {
	if create && isEmptyDoc(merged) {
		return nil
	}
	return merged
}

// keepOthersFields makes the body of an update keep what another manager
// owns, and leave no map it empties as null (writebody.go).
func (r *Resource) keepOthersFields(ctx context.Context, wr *writeRequest) {
	manager := r.fieldManager(wr.plan)
	obj, err := wr.cl.GetApplication(ctx, wr.plan.Namespace.ValueString(), wr.plan.Name.ValueString())
	if err != nil || obj == nil {
		return
	}
	if spec, ok := wr.body["spec"].(map[string]any); ok && spec["settings"] != nil {
		spec["settings"] = engine.Merge(map[string]any{}, spec["settings"]) // a copy: wr.settings stays the configuration's
	}
	keepContainers(wr.body, obj, manager)
	wr.takenOver = leafPaths(foreignSettings(obj, manager))
	if wr.private.Imported {
		// The first write after an import: any value of the settings or of
		// DP's record may be a secret an earlier configuration wrote, under
		// this field manager too. Every path stays out of
		// last_applied_settings until DP's record is of this write.
		record, _ := appstatus.LastApplied(obj)
		settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
		wr.takenOver = leafPaths(engine.Merge(record, settings))
	}
	wr.removeFirst = emptiedFields(wr.body, obj, manager)
}

// create writes a new Application and waits for DP.
func (r *Resource) create(ctx context.Context, plan *applicationModel, sensitiveVal types.Dynamic) (w writeOutcome) {
	wr, diags := r.prepareWrite(ctx, plan, nil, sensitiveVal, privateState{})
	w.diags = diags
	if wr == nil {
		return w
	}
	defer func() { w.diags = wr.secrets.Diagnostics(w.diags) }()
	res := wr.cl.Write(ctx, wr.request())
	if res.Err != nil {
		wr.learnRefused(ctx, res.Err)
		msg := res.Err.Error()
		if res.MarkErr != nil {
			msg += ". It could not be marked for adoption (" + res.MarkErr.Error() + "): if it was written, the next apply refuses it as an existing Application; import it then"
		}
		w.diags.Append(writeError(wr, "create", msg)...)
		return w
	}
	obj, waitErr := res.Object, res.WaitErr
	logApplied(ctx, obj)
	wr.learn(obj)
	if waitErr != nil {
		var marked string
		switch {
		case res.Marked:
			marked = "It carries the annotation " + dpclient.AnnotationPendingCreate + ": the next apply adopts it and waits again (nothing is deleted)."
		case res.MarkErr != nil:
			marked = "It could not be marked for adoption (" + res.MarkErr.Error() + "): the next apply refuses it as an existing Application; import it."
		}
		w.diags.AddError(fmt.Sprintf("%s: created, but %s", wr.who, waitSummary(waitErr)),
			waitErr.Error()+".\n\nThe Application was left in place and is not recorded in the state. "+marked+
				" To give it up, delete it from the cluster; to manage it as it is, import it.")
		return w
	}
	r.written(ctx, wr, obj, nil, &w)
	return w
}

// update writes the Application of an existing state and waits for DP. A
// write whose reply was lost may have landed: the state keeps the prior
// values, and ApplyPending makes the next plans show this update until DP
// has applied it (a refresh alone would adopt the written settings and
// plan nothing).
func (r *Resource) update(ctx context.Context, plan, prior *applicationModel, sensitiveVal types.Dynamic, priv privateState) (w writeOutcome) {
	wr, diags := r.prepareWrite(ctx, plan, prior, sensitiveVal, priv)
	w.diags = diags
	if wr == nil {
		return w
	}
	defer func() { w.diags = wr.secrets.Diagnostics(w.diags) }()
	if len(wr.removeFirst) > 0 {
		if err := wr.cl.RemoveFields(ctx, plan.Namespace.ValueString(), plan.Name.ValueString(), wr.opts.FieldManager, wr.removeFirst); err != nil {
			wr.learnRefused(ctx, err)
			w.diags.Append(writeError(wr, "update", fmt.Sprintf("removing the fields the configuration no longer sets "+
				"before the apply: %v. Nothing else was written; run the apply again", err))...)
			return w
		}
	}
	res := wr.cl.Write(ctx, wr.request())
	if res.Err != nil {
		wr.learnRefused(ctx, res.Err)
		if res.Outcome != dpclient.MayHaveLanded {
			w.diags.Append(writeError(wr, "update", res.Err.Error())...)
			return w
		}
		cause := res.Err
		if we := (*dpclient.WriteError)(nil); errors.As(cause, &we) && we.Err != nil {
			cause = we.Err
		}
		w.private, w.privateChanged = priv, true
		w.private.ApplyPending = true
		// The secrets it took from sensitive_settings may be in the cluster
		// now: tracked until a write known to have landed settles them.
		w.private.RetiredPaths = append(w.private.RetiredPaths, wr.mayHaveWritten()...)
		w.private.TakenOverPaths = w.private.takenOverAfterWrite(wr.takenOver, 0, appSalt(plan.Namespace.ValueString(), plan.Name.ValueString()))
		w.diags.Append(writeError(wr, "update", fmt.Sprintf("update of %s failed: %v. The request may have reached the API "+
			"server, so the Application may hold the new settings: the next plan shows this update again, and the next "+
			"apply writes it again and waits for DP", wr.who, cause))...)
		return w
	}
	obj, waitErr := res.Object, res.WaitErr
	logApplied(ctx, obj)
	wr.learn(obj)
	r.written(ctx, wr, obj, waitErr, &w)
	if waitErr != nil {
		w.diags.AddError(fmt.Sprintf("%s: %s", wr.who, waitSummary(waitErr)),
			waitErr.Error()+".\n\nThe state records the written settings; the next plan shows an update of this Application "+
				"until DP has applied them, and the next apply writes them again and waits.")
	}
	return w
}

// learn adds to the write's redactor every value of the written
// Application that the state will not hold (dpRedactor: another manager's
// keys, the values at the paths sensitive_settings wrote before, of any
// generation DP's record may be of), so that neither DP's texts in the
// recorded status nor the write's diagnostics and log lines carry them.
func (wr *writeRequest) learn(obj *unstructured.Unstructured) {
	if obj == nil {
		return
	}
	// The configuration's settings are what the state will hold, after an
	// import too: every other value of spec.settings is redacted.
	priv := wr.private
	priv.Imported = false
	wr.secrets = redactorOf(obj, priv, wr.settings, wr.secrets)
}

// learnRefused learns the Application in the cluster after a write the API
// server answered with an error (DP's webhook refused it): its text may
// quote values of the stored Application (another manager's, an imported
// one's), which the write alone does not know.
func (wr *writeRequest) learnRefused(ctx context.Context, err error) {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	obj, gerr := wr.cl.GetApplication(rctx, wr.plan.Namespace.ValueString(), wr.plan.Name.ValueString())
	if gerr == nil {
		wr.learn(obj)
	}
}

// mayHaveWritten is the paths a write whose reply was lost took from
// sensitive_settings and the private state does not track yet, retired with
// no generation: DP's record may hold them until a later write lands.
func (wr *writeRequest) mayHaveWritten() []retiredPath {
	salt := appSalt(wr.plan.Namespace.ValueString(), wr.plan.Name.ValueString())
	tracked := wr.private.tracked()
	var out []retiredPath
	for _, sp := range secretPaths(wr.sensitive, wr.declared, salt) {
		if !containsPath(tracked, sp, salt) {
			out = append(out, retiredPath{Path: sp})
		}
	}
	return out
}

// writeError reports a failed write, at the settings field DP's text names
// when it names one.
func writeError(wr *writeRequest, op, text string) diag.Diagnostics {
	var diags diag.Diagnostics
	summary := fmt.Sprintf("Cannot %s %s", op, wr.who)
	if at, ok := dpFieldPath(text, wr.settings, wr.sensitive); ok {
		diags.AddAttributeError(at, summary, text)
	} else {
		diags.AddError(summary, text)
	}
	return diags
}

// request is the write of wr for dpclient: the apply and, when the resource
// waits, the wait for DP's verdict.
func (wr *writeRequest) request() dpclient.WriteRequest {
	// The wait's log lines are redacted with what the applied Application
	// teaches too (another manager's values beside this configuration's).
	req := dpclient.WriteRequest{Object: wr.body, ApplyOptions: wr.opts, Applied: wr.learn}
	if wr.plan.Wait.ValueBool() {
		req.Wait = &dpclient.WaitOptions{Condition: wr.plan.waitFor(), Redact: func(s string) string { return wr.secrets.Redact(s) }}
	}
	return req
}

func logApplied(ctx context.Context, obj *unstructured.Unstructured) {
	tflog.Debug(ctx, "applied Application", map[string]any{"namespace": obj.GetNamespace(), "name": obj.GetName(), "generation": obj.GetGeneration()})
}

// written fills the plan model with the state to record after a write that
// landed, and the private state.
func (r *Resource) written(_ context.Context, wr *writeRequest, obj *unstructured.Unstructured, waitErr error, w *writeOutcome) {
	plan := wr.plan
	paths := secretPaths(wr.sensitive, wr.declared, appSalt(plan.Namespace.ValueString(), plan.Name.ValueString()))
	if wr.sensitive == nil && wr.prior != nil && plan.SensitiveSettingsVersion.Equal(wr.prior.SensitiveSettingsVersion) {
		// sensitive_settings not given in this run: the paths recorded
		// before stay (the removal guard let this write through only
		// because none of them was written before).
		paths = wr.private.SensitivePaths
	}
	w.recorded = true
	w.private = privateState{
		SensitivePaths:  paths,
		RetiredPaths:    wr.private.afterWrite(paths, obj.GetGeneration(), appSalt(obj.GetNamespace(), obj.GetName())),
		TakenOverPaths:  wr.private.takenOverAfterWrite(wr.takenOver, obj.GetGeneration(), appSalt(obj.GetNamespace(), obj.GetName())),
		Recorded:        true,
		ApplyPending:    waitErr != nil,
		UID:             string(obj.GetUID()),
		ResourceVersion: obj.GetResourceVersion(),
	}.settled(dpclient.AppliedGeneration(obj))
	plan.ID = types.StringValue(plan.Namespace.ValueString() + "/" + plan.Name.ValueString())
	if plan.Status.IsUnknown() || waitErr != nil {
		plan.Status = appstatus.Read(obj, wr.secrets.Redact).ResourceValue()
	}
	if plan.LastAppliedSettings.IsUnknown() {
		plan.LastAppliedSettings = lastAppliedValue(obj, withForeignPaths(obj, wr.opts.FieldManager, w.private.recordPaths()))
	}
	if plan.EffectiveSettings.IsUnknown() {
		// Not computed by the checks (they did not run): DP's record once
		// it is of the written generation, as a refresh reads it.
		plan.EffectiveSettings = types.StringNull()
		if _, ok := appstatus.EffectiveSettings(obj); ok && !plan.LastAppliedSettings.IsUnknown() {
			plan.EffectiveSettings = plan.LastAppliedSettings
		}
	}
	plan.LastAppliedSettings = lastAppliedStored(plan.LastAppliedSettings, plan.EffectiveSettings)
}

// waitSummary is the one-line summary of a failed wait.
func waitSummary(err error) string {
	var we *dpclient.WaitError
	switch {
	case errors.As(err, &we) && we.Rejected:
		return "DP rejected the settings"
	case errors.As(err, &we) && we.Timeout:
		return "timed out waiting for DP"
	case errors.As(err, &we) && we.Deleted:
		return "deleted while waiting for DP"
	}
	return "waiting for DP failed"
}
