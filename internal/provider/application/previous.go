package application

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// The previous document of the update checks (immutable fields, oldSelf
// rules, enum switches) is DP's: the effective settings it applied last.
// The state keeps them as last_applied_settings, without the values
// sensitive_settings wrote, or, when they are the effective settings, as
// effective_settings alone (last_applied_settings null: lastAppliedStored).
// Two cases need more:
//
//   - an imported Application, whose state holds none of its settings (any
//     may be a secret) until the first apply: the checks read
//     status.lastAppliedConfiguration (else spec.settings, as DP falls back)
//     from the cluster and keep it in memory only;
//   - with plan_checks = "required", the paths written from
//     sensitive_settings: their previous values are never kept, so the
//     previous document holds them as unknown, and the checks on them are
//     reported as not run (an error) instead of passing unseen.

// previousFromCluster sets in's previous document from the Application in
// the cluster, and whether the update changes the version DP installed
// (status.currentVersion). An Application DP never applied settings to and
// without settings has none (an installation, for DP).
func previousFromCluster(ctx context.Context, cl *dpclient.Client, in *checkInput) error {
	obj, err := cl.GetApplication(ctx, in.namespace, in.name)
	if err != nil {
		return err
	}
	in.previous, in.hasPrevious, in.previousIsRaw = nil, false, false
	installed, _, _ := unstructured.NestedString(obj.Object, "status", "currentVersion", "version")
	in.versionChange = versionChanges(installed, in.version)
	// oldSelf: the settings the user wrote, as the cluster holds them (the
	// state of an imported Application records none).
	in.previousRaw, in.hasPreviousRaw = map[string]any{}, true
	if v, ok, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings"); ok && v != nil {
		in.previousRaw = v
	}
	if v, ok, _ := unstructured.NestedFieldCopy(obj.Object, "status", "lastAppliedConfiguration"); ok && v != nil {
		in.previous, in.hasPrevious = v, true
		return nil
	}
	if v, ok, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "settings"); ok && v != nil {
		in.previous, in.hasPrevious, in.previousIsRaw = v, true, true
	}
	return nil
}

// withUnknownSecrets returns previous with engine.Unknown at the plain key
// paths of the values sensitive_settings writes or wrote.
func withUnknownSecrets(previous, sensitive any, recorded []sensitivePath, salt string) any {
	out, ok := engine.Merge(map[string]any{}, previous).(map[string]any) // a deep copy
	if !ok {
		return previous
	}
	var paths [][]string
	for _, sp := range secretPaths(sensitive, nil, salt) {
		paths = append(paths, sp)
	}
	for _, sp := range recorded {
		if p, _, ok := sp.resolve(sensitive, salt); ok {
			paths = append(paths, p)
		} else if !sp.hashed() {
			paths = append(paths, sp)
		}
	}
	for _, p := range paths {
		setUnknown(out, p)
	}
	return out
}

// setUnknown puts engine.Unknown at p, creating the objects on the way.
func setUnknown(m map[string]any, p []string) {
	for i, k := range p {
		if i == len(p)-1 {
			m[k] = engine.Unknown{}
			return
		}
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
}
