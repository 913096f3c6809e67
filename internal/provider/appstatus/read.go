package appstatus

import (
	"encoding/json"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// Status is what an Application's status says. A nil pointer is a field DP
// has not written.
type Status struct {
	State, Message, Tip, InstalledVersion *string
	URLs                                  []URL
	// Conditions holds every entry of status.conditions with a type, sorted by type.
	Conditions []Condition
	// ConfigurationApplied is the ConfigurationApplied condition, nil when absent.
	ConfigurationApplied *Condition
}

// URL is one entry of status.urls.
type URL struct {
	URL, Description *string
}

// Condition is one entry of status.conditions.
type Condition struct {
	Type                    string
	Status, Reason, Message *string
	ObservedGeneration      *int64
}

// Read reads the status of the Application obj. Every text DP wrote goes
// through redact (nil: kept as is); a condition's type and status do not.
func Read(obj *unstructured.Unstructured, redact func(string) string) Status {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	r := reader{obj: obj, redact: redact}
	status, _, _ := unstructured.NestedMap(obj.Object, "status")
	summary, _ := status["summary"].(map[string]any)
	current, _ := status["currentVersion"].(map[string]any)
	s := Status{
		State:            r.text(summary, "state", 0),
		Message:          r.text(summary, "message", dpclient.SummaryGeneration(obj)),
		Tip:              r.text(summary, "tip", dpclient.SummaryGeneration(obj)),
		InstalledVersion: r.text(current, "version", 0),
	}
	urls, _ := status["urls"].([]any)
	for _, u := range urls {
		if m, ok := u.(map[string]any); ok {
			s.URLs = append(s.URLs, URL{URL: r.text(m, "url", 0), Description: r.text(m, "description", 0)})
		}
	}
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if typ, _ := m["type"].(string); ok && typ != "" {
			gen := integer(m["observedGeneration"])
			s.Conditions = append(s.Conditions, Condition{
				Type:               typ,
				Status:             str(m, "status"),
				Reason:             r.text(m, "reason", 0),
				Message:            r.text(m, "message", deref(gen)),
				ObservedGeneration: gen,
			})
		}
	}
	sort.SliceStable(s.Conditions, func(i, j int) bool { return s.Conditions[i].Type < s.Conditions[j].Type })
	s.ConfigurationApplied = s.Condition(dpclient.ConditionConfigurationApplied)
	return s
}

// Condition returns the condition typ, or nil when absent.
func (s Status) Condition(typ string) *Condition {
	if i := slices.IndexFunc(s.Conditions, func(c Condition) bool { return c.Type == typ }); i >= 0 {
		return &s.Conditions[i]
	}
	return nil
}

// ConditionStatus returns the status of the condition typ, or nil when the
// condition or its status is absent.
func (s Status) ConditionStatus(typ string) *string {
	if c := s.Condition(typ); c != nil {
		return c.Status
	}
	return nil
}

// EffectiveSettings returns the effective settings of the Application's
// current spec.settings as DP recorded them: status.lastAppliedConfiguration
// when DP has applied the current generation (ConfigurationApplied True with
// observedGeneration equal to metadata.generation), and false otherwise
// (before the first apply, or while the record is of an earlier generation).
func EffectiveSettings(obj *unstructured.Unstructured) (any, bool) {
	v, ok := LastApplied(obj)
	if !ok || !dpclient.VerdictOf(obj, dpclient.ConditionConfigurationApplied).Done {
		return nil, false
	}
	return v, true
}

// LastApplied returns status.lastAppliedConfiguration (a deep copy), the
// effective settings of DP's last successful apply, whatever generation it
// was of; false when DP has not recorded one.
func LastApplied(obj *unstructured.Unstructured) (any, bool) {
	v, ok, err := unstructured.NestedFieldCopy(obj.Object, "status", "lastAppliedConfiguration")
	if !ok || err != nil || v == nil {
		return nil, false
	}
	return v, true
}

type reader struct {
	obj    *unstructured.Unstructured
	redact func(string) string
}

// text is the redacted string m[key], DP's text about generation gen
// (dpclient.Text), nil when absent or not a string.
func (r reader) text(m map[string]any, key string, gen int64) *string {
	v := str(m, key)
	if v != nil {
		red := r.redact(dpclient.Text(r.obj, gen, *v))
		v = &red
	}
	return v
}

// str is the string m[key], nil when absent or not a string.
func str(m map[string]any, key string) *string {
	v, ok := m[key].(string)
	if !ok {
		return nil
	}
	return &v
}

func deref(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

// integer is a JSON integer as the decoders of unstructured objects give
// it, nil when absent or not a number.
func integer(v any) *int64 {
	var n int64
	switch v := v.(type) {
	case int64:
		n = v
	case int:
		n = int64(v)
	case float64:
		n = int64(v)
	case json.Number:
		i, err := v.Int64()
		if err != nil {
			return nil
		}
		n = i
	default:
		return nil
	}
	return &n
}
