package application

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
)

// The values of sensitive_settings are kept out of every text the resource
// emits by diagnostics.Redactor.
//
// DP's texts (status.summary, the conditions' messages, a failed wait) may
// quote any value of spec.settings. What is redacted from them follows from
// what the state may hold, not from how the state was reached (an import, a
// create, an update, a refresh): every value of spec.settings that the state
// does not hold as settings (keys this configuration does not set, another
// manager's keys, the values of sensitive_settings) is replaced.

type redactor = diagnostics.Redactor

const redactedMarker = diagnostics.RedactedMarker

func newRedactor(docs ...any) *redactor { return diagnostics.NewRedactor(docs...) }

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
		if held != nil && jsonEqual(cluster, held) {
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
