package application

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
)

// The values of sensitive_settings are kept out of every text the resource
// emits by diagnostics.Redactor.
//
// DP's texts (status.summary, the conditions' messages, a refused write, a
// failed wait, a delete that timed out) may quote any value of spec.settings
// and of DP's record of the settings it applied (status.lastAppliedConfiguration,
// which may be of an earlier generation). What is redacted from them follows
// from what the state may hold, not from how the state was reached (an
// import, a create, an update, a refresh): every value the state does not
// hold is replaced. dpRedactor is that redactor; every place that stores or
// reports DP's texts about an Application builds it from the Application it
// read:
//
//   - values of spec.settings the state does not hold as settings (keys this
//     configuration does not set, another manager's keys, the values of
//     sensitive_settings);
//   - values of spec.settings and of DP's record at the paths sensitive_settings
//     wrote, of this generation or of one DP's record may still be of
//     (privateState.tracked);
//   - the keys on those paths that were recorded hashed;
//   - before the first write after an import, every value of spec.settings
//     (importedRedactor): the state holds none.
//
// DP's text about a generation later writes replaced before DP applied it
// may quote values neither spec.settings nor DP's record holds any more; it
// is withheld whole before any redactor sees it (dpclient.Text).
//
// DP's record is read at the paths of sensitive_settings only: it also
// holds the defaults DP filled in, which the state holds as
// effective_settings and DP's texts quote ("admin", "Info").

type redactor = diagnostics.Redactor

const redactedMarker = diagnostics.RedactedMarker

func newRedactor(docs ...any) *redactor { return diagnostics.NewRedactor(docs...) }

// dpRedactor returns base (the secrets the caller knows besides the
// cluster's: the values of sensitive_settings a write sends) with every
// value of obj the state does not hold: held is the settings the state holds
// (without other managers' keys), paths the tracked sensitive paths. A nil
// obj returns base.
func dpRedactor(obj *unstructured.Unstructured, held any, paths []sensitivePath, base *redactor) *redactor {
	if obj == nil {
		return base
	}
	spec, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	record, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "lastAppliedConfiguration")
	salt := appSalt(obj.GetNamespace(), obj.GetName())
	docs := []any{notHeld(spec, held)}
	var keys []string
	for _, doc := range []any{spec, record} {
		for _, sp := range paths {
			plain, v, ok := sp.resolve(doc, salt)
			if !ok {
				continue
			}
			docs = append(docs, v)
			for i, seg := range sp {
				if strings.HasPrefix(seg, hashedKey) {
					keys = append(keys, plain[i])
				}
			}
		}
	}
	return base.WithValues(docs...).WithKeys(keys)
}

// redactorOf is dpRedactor of obj for a state with private state priv,
// whose settings are held (heldSettingsOf when the state's settings are not
// at hand). An imported Application not written by this resource yet has
// every value of spec.settings redacted: the state holds none.
func redactorOf(obj *unstructured.Unstructured, priv privateState, held any, base *redactor) *redactor {
	if priv.Imported {
		held = nil
	}
	return dpRedactor(obj, held, priv.recordPaths(), base)
}

// heldSettingsOf is what a refresh of obj holds as settings when the state's
// own are not at hand (a delete decodes only the attributes it needs): the
// keys manager owns, without the values at the tracked paths.
func heldSettingsOf(obj *unstructured.Unstructured, manager string, priv privateState) any {
	spec, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	paths := withForeignPaths(obj, manager, priv.tracked())
	return stripPaths(spec, resolvePaths(spec, paths, appSalt(obj.GetNamespace(), obj.GetName())), nil)
}

// notHeld is the part of the cluster's settings that held (the settings the
// state holds, or this configuration sets) does not hold: keys held lacks,
// whole, and values that differ from held's. Nil when held holds it all.
func notHeld(cluster, held any) any {
	cm, isMap := cluster.(map[string]any)
	hm, heldMap := held.(map[string]any)
	switch {
	case cluster == nil:
		return nil
	case !isMap || !heldMap:
		if held != nil && jsonvalue.Equal(cluster, held) {
			return nil
		}
		return cluster
	}
	out := map[string]any{}
	for k, v := range cm {
		h, ok := hm[k]
		if !ok {
			out[k] = v
			continue
		}
		if rest := notHeld(v, h); rest != nil {
			out[k] = rest
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// redactNotHeld returns redact followed by the redaction of every value of
// obj's spec.settings that held does not hold.
func redactNotHeld(obj *unstructured.Unstructured, held any, redact func(string) string) func(string) string {
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	rest := notHeld(settings, held)
	if rest == nil {
		return redact
	}
	more := newRedactor(rest)
	if redact == nil {
		return more.Redact
	}
	return func(s string) string { return more.Redact(redact(s)) }
}
