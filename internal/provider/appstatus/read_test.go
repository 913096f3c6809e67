package appstatus

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func app(status map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "a", "namespace": "ns", "generation": int64(2)},
	}}
	if status != nil {
		obj.Object["status"] = status
	}
	return obj
}

func ptr[T any](v T) *T { return &v }

// The resource and the data sources read the status with Read and store
// Value: a field DP has not written is null, one it wrote as "" is "", and a
// field of the wrong type counts as absent. The lists are never null.
func TestAppStatus_AbsentFieldsAreNullInBothReaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status map[string]any
		want   Status
	}{
		{name: "no status", status: nil, want: Status{}},
		{name: "empty status", status: map[string]any{}, want: Status{}},
		{
			name:   "summary with the state only",
			status: map[string]any{"summary": map[string]any{"state": "Pending"}},
			want:   Status{State: ptr("Pending")},
		},
		{
			name:   "empty strings DP wrote stay empty",
			status: map[string]any{"summary": map[string]any{"state": "Ready", "message": "", "tip": ""}},
			want:   Status{State: ptr("Ready"), Message: ptr(""), Tip: ptr("")},
		},
		{
			name: "a condition without reason, message or observedGeneration",
			status: map[string]any{"conditions": []any{
				map[string]any{"type": "Installed", "status": "True"},
			}},
			want: Status{Conditions: []Condition{{Type: "Installed", Status: ptr("True")}}},
		},
		{
			name: "a condition with an empty message",
			status: map[string]any{"conditions": []any{
				map[string]any{"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied", "message": "", "observedGeneration": int64(2)},
			}},
			want: Status{
				Conditions: []Condition{{Type: "ConfigurationApplied", Status: ptr("True"), Reason: ptr("ConfigurationApplied"), Message: ptr(""), ObservedGeneration: ptr(int64(2))}},
				ConfigurationApplied: &Condition{Type: "ConfigurationApplied", Status: ptr("True"), Reason: ptr("ConfigurationApplied"),
					Message: ptr(""), ObservedGeneration: ptr(int64(2))},
			},
		},
		{
			name:   "a URL without description",
			status: map[string]any{"urls": []any{map[string]any{"url": "https://a.example.com"}}},
			want:   Status{URLs: []URL{{URL: ptr("https://a.example.com")}}},
		},
		{
			name: "fields of the wrong type count as absent",
			status: map[string]any{
				"summary": map[string]any{"state": int64(1), "message": true}, "currentVersion": "v1",
				"urls": "x", "conditions": map[string]any{},
			},
			want: Status{},
		},
		{
			name: "entries of the wrong type and conditions without type are skipped",
			status: map[string]any{
				"urls":       []any{"not an object", map[string]any{"url": int64(3), "description": "d"}},
				"conditions": []any{"x", map[string]any{"status": "True"}, map[string]any{"type": "", "status": "True"}},
			},
			want: Status{URLs: []URL{{Description: ptr("d")}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Read(app(tt.status), nil)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Read =\n%+v\nwant\n%+v", got, tt.want)
			}
			v := got.Value()
			if v.IsNull() || v.IsUnknown() {
				t.Fatalf("Value is %v, want a known object", v)
			}
			checkNulls(t, "status", v, tt.want)
			for _, k := range []string{"urls", "conditions"} {
				if v.Attributes()[k].IsNull() {
					t.Errorf("status.%s is null, want a list", k)
				}
			}
		})
	}
}

// checkNulls checks that each pointer field of want is null in v exactly
// when it is nil.
func checkNulls(t *testing.T, at string, v types.Object, want Status) {
	t.Helper()
	attrs := v.Attributes()
	for name, p := range map[string]*string{"state": want.State, "message": want.Message, "tip": want.Tip, "installed_version": want.InstalledVersion} {
		if got := attrs[name].IsNull(); got != (p == nil) {
			t.Errorf("%s.%s null = %v, want %v", at, name, got, p == nil)
		}
	}
	if got := attrs["configuration_applied"].IsNull(); got != (want.ConfigurationApplied == nil) {
		t.Errorf("%s.configuration_applied null = %v, want %v", at, got, want.ConfigurationApplied == nil)
	}
	conds := attrs["conditions"].(types.List).Elements()
	for i, c := range want.Conditions {
		ca := conds[i].(types.Object).Attributes()
		for name, isNil := range map[string]bool{"status": c.Status == nil, "reason": c.Reason == nil, "message": c.Message == nil,
			"observed_generation": c.ObservedGeneration == nil} {
			if ca[name].IsNull() != isNil {
				t.Errorf("%s.conditions[%d].%s null = %v, want %v", at, i, name, ca[name].IsNull(), isNil)
			}
		}
	}
	urls := attrs["urls"].(types.List).Elements()
	for i, u := range want.URLs {
		ua := urls[i].(types.Object).Attributes()
		if ua["url"].IsNull() != (u.URL == nil) || ua["description"].IsNull() != (u.Description == nil) {
			t.Errorf("%s.urls[%d] = %v, want nulls for the absent fields of %+v", at, i, urls[i], u)
		}
	}
}

// Conditions are sorted by type whatever DP's order, and
// configuration_applied is the ConfigurationApplied entry.
func TestAppStatus_ConditionsSortedByTypeAndConfigurationAppliedPicked(t *testing.T) {
	t.Parallel()
	s := Read(app(map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "False", "reason": "Pending"},
		map[string]any{"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied", "observedGeneration": float64(2)},
		map[string]any{"type": "Installed", "status": "True"},
	}}), nil)
	var order []string
	for _, c := range s.Conditions {
		order = append(order, c.Type)
	}
	if want := []string{"ConfigurationApplied", "Installed", "Ready"}; !reflect.DeepEqual(order, want) {
		t.Errorf("condition types = %v, want %v", order, want)
	}
	if s.ConfigurationApplied == nil || *s.ConfigurationApplied.ObservedGeneration != 2 {
		t.Errorf("ConfigurationApplied = %+v, want the condition of generation 2", s.ConfigurationApplied)
	}
	if got := s.ConditionStatus("Ready"); got == nil || *got != "False" {
		t.Errorf("ConditionStatus(Ready) = %v, want False", got)
	}
	if got := s.ConditionStatus("Scaled"); got != nil {
		t.Errorf("ConditionStatus(Scaled) = %q, want nil", *got)
	}
}

// Every string of the status but a condition's type and status goes
// through the caller's redactor (the URL itself, an address, does not).
func TestAppStatus_EveryDPTextGoesThroughTheRedactor(t *testing.T) {
	t.Parallel()
	const secret = "hunter22"
	say := func(what string) string { return what + " " + secret }
	obj := app(map[string]any{
		"summary":        map[string]any{"state": say("Failed"), "message": say("message"), "tip": say("tip")},
		"currentVersion": map[string]any{"version": say("v1")},
		"urls":           []any{map[string]any{"url": "https://a.example.com", "description": say("description")}},
		"conditions": []any{map[string]any{"type": "Ready", "status": "False",
			"reason": say("reason"), "message": say("condition message")}},
	})
	s := Read(obj, func(text string) string { return strings.ReplaceAll(text, secret, "(sensitive value)") })
	c := s.Conditions[0]
	for _, text := range []*string{s.State, s.Message, s.Tip, s.InstalledVersion, s.URLs[0].Description, c.Reason, c.Message} {
		if strings.Contains(*text, secret) || !strings.Contains(*text, "(sensitive value)") {
			t.Errorf("text %q was not redacted", *text)
		}
	}
	if c.Type != "Ready" || *c.Status != "False" || *s.URLs[0].URL != "https://a.example.com" {
		t.Errorf("type, status or url changed: %+v %+v", c, s.URLs[0])
	}
}

// effective_settings means the effective settings of the current
// spec.settings: DP's record holds them only once DP has applied the
// current generation; last_applied_settings is the record whatever its
// generation.
func TestAppStatus_EffectiveSettingsAreDPsRecordOfTheCurrentGeneration(t *testing.T) {
	t.Parallel()
	record := map[string]any{"replicas": int64(2)}
	applied := func(status string, gen int64) map[string]any {
		return map[string]any{"type": "ConfigurationApplied", "status": status, "reason": "x", "observedGeneration": gen}
	}
	tests := []struct {
		name                    string
		status                  map[string]any
		wantEffective, wantLast bool
	}{
		{name: "before the first apply", status: map[string]any{"conditions": []any{applied("Unknown", 2)}}},
		{name: "applied the current generation", status: map[string]any{"lastAppliedConfiguration": record,
			"conditions": []any{applied("True", 2)}}, wantEffective: true, wantLast: true},
		{name: "record of an earlier generation", status: map[string]any{"lastAppliedConfiguration": record,
			"conditions": []any{applied("True", 1)}}, wantLast: true},
		{name: "current generation rejected", status: map[string]any{"lastAppliedConfiguration": record,
			"conditions": []any{applied("False", 2)}}, wantLast: true},
		{name: "no condition", status: map[string]any{"lastAppliedConfiguration": record}, wantLast: true},
		{name: "null record", status: map[string]any{"lastAppliedConfiguration": nil, "conditions": []any{applied("True", 2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := app(tt.status)
			eff, ok := EffectiveSettings(obj)
			if ok != tt.wantEffective || (ok && !reflect.DeepEqual(eff, record)) {
				t.Errorf("EffectiveSettings = %v, %v; want record: %v", eff, ok, tt.wantEffective)
			}
			last, ok := LastApplied(obj)
			if ok != tt.wantLast || (ok && !reflect.DeepEqual(last, record)) {
				t.Errorf("LastApplied = %v, %v; want record: %v", last, ok, tt.wantLast)
			}
		})
	}
}

// The data source's status attribute has the object type Value builds; the
// resource's has the type ResourceValue builds: the same without conditions,
// whose attributes say the same things as the data source's.
func TestAppStatus_ResourceStatusIsTheDataSourcesWithoutConditions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	want := types.ObjectType{AttrTypes: AttrTypes}
	wantResource := types.ObjectType{AttrTypes: ResourceAttrTypes}
	r, d := ResourceAttribute(), DataSourceAttribute()
	if got := r.GetType(); !got.Equal(wantResource) {
		t.Errorf("resource status type = %s, want %s", got, wantResource)
	}
	if got := d.GetType(); !got.Equal(want) {
		t.Errorf("data source status type = %s, want %s", got, want)
	}
	if got := (Status{}).Value().Type(ctx); !got.Equal(want) {
		t.Errorf("Value type = %s, want %s", got, want)
	}
	if got := (Status{}).ResourceValue().Type(ctx); !got.Equal(wantResource) {
		t.Errorf("ResourceValue type = %s, want %s", got, wantResource)
	}
	if _, ok := ResourceAttrTypes["conditions"]; ok || len(ResourceAttrTypes) != len(AttrTypes)-1 {
		t.Errorf("resource status attributes = %v, want the data source's but conditions", ResourceAttrTypes)
	}
	for name, ra := range r.GetNestedObject().GetAttributes() {
		if ra.GetMarkdownDescription() != d.GetNestedObject().GetAttributes()[name].GetMarkdownDescription() {
			t.Errorf("status.%s: descriptions differ", name)
		}
	}
}

// ResourceValue holds what Value holds but the conditions.
func TestAppStatus_ResourceValueIsValueWithoutConditions(t *testing.T) {
	t.Parallel()
	ready, msg, applied := "Ready", "all good", "True"
	s := Status{State: &ready, Message: &msg,
		Conditions:           []Condition{{Type: "ConfigurationApplied", Status: &applied}},
		ConfigurationApplied: &Condition{Type: "ConfigurationApplied", Status: &applied}}
	full, lean := s.Value().Attributes(), s.ResourceValue().Attributes()
	for name, v := range lean {
		if !v.Equal(full[name]) {
			t.Errorf("status.%s = %v, Value has %v", name, v, full[name])
		}
	}
	if _, ok := lean["conditions"]; ok {
		t.Error("ResourceValue holds conditions")
	}
}
