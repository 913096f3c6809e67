package datasources

import (
	"encoding/base64"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
)

func TestReadAppStatus_SummaryURLsAndConditionsByType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status map[string]any
		want   appStatus
	}{
		{name: "no status", status: nil, want: appStatus{}},
		{
			name: "everything DP reports",
			status: map[string]any{
				"summary":        map[string]any{"state": "Degraded", "message": "1 of 2 pods ready", "tip": "check the node pool"},
				"currentVersion": map[string]any{"version": "v1.2.0", "channel": "stable"},
				"urls": []any{
					map[string]any{"url": "https://app.example.com", "description": "Web UI"},
					map[string]any{"url": "https://api.example.com"},
					"not an object",
				},
				"conditions": []any{
					map[string]any{"type": "Ready", "status": "False", "reason": "Pending", "message": "waiting", "observedGeneration": int64(3)},
					map[string]any{"type": "ConfigurationApplied", "status": "True", "reason": "ConfigurationApplied", "message": "", "observedGeneration": int64(3)},
					map[string]any{"type": "Installed", "status": "True", "reason": "Installed"},
					map[string]any{"status": "True"}, // no type: not a condition
				},
			},
			want: appStatus{
				State: ptrTo("Degraded"), Message: ptrTo("1 of 2 pods ready"), Tip: ptrTo("check the node pool"), InstalledVersion: ptrTo("v1.2.0"),
				URLs: []appURL{{URL: "https://app.example.com", Description: "Web UI"}, {URL: "https://api.example.com"}},
				Conditions: []appCondition{
					{Type: "ConfigurationApplied", Status: "True", Reason: "ConfigurationApplied", ObservedGeneration: ptrTo(int64(3))},
					{Type: "Installed", Status: "True", Reason: "Installed"},
					{Type: "Ready", Status: "False", Reason: "Pending", Message: "waiting", ObservedGeneration: ptrTo(int64(3))},
				},
			},
		},
		{
			name:   "fields of the wrong type count as absent",
			status: map[string]any{"summary": map[string]any{"state": int64(1)}, "urls": "x", "conditions": map[string]any{}},
			want:   appStatus{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a"}}}
			if tt.status != nil {
				obj.Object["status"] = tt.status
			}
			got := readAppStatus(obj)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("readAppStatus =\n%+v\nwant\n%+v", got, tt.want)
			}
			// The Terraform value always has lists, possibly empty, never null.
			v := got.value()
			for _, k := range []string{"urls", "conditions"} {
				if v.Attributes()[k].IsNull() {
					t.Errorf("status.%s is null, want a list", k)
				}
			}
		})
	}
}

func TestAppStatus_ConditionStatusByType(t *testing.T) {
	t.Parallel()
	s := appStatus{Conditions: []appCondition{{Type: "ConfigurationApplied", Status: "True"}, {Type: "Ready", Status: "Unknown"}}}
	if got := s.condition("Ready"); got == nil || *got != "Unknown" {
		t.Errorf("Ready = %v, want Unknown", got)
	}
	if got := s.condition("Installed"); got != nil {
		t.Errorf("Installed = %q, want nil", *got)
	}
}

func ptrTo[T any](v T) *T { return &v }

// DP's texts in the status may quote a setting, and any value of
// spec.settings may be a secret: the data source redacts every one of them
// from the summary message, the tip and the condition messages, also in
// URL-encoded and base64 form.
func TestReadAppStatus_DPTextsRedactedOfEverySetting(t *testing.T) {
	t.Parallel()
	const secret = "db-pass:9f81c2"
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "a"},
		"spec":     map[string]any{"settings": map[string]any{"db": map[string]any{"password": secret}}},
		"status": map[string]any{
			"summary": map[string]any{"state": "Failed", "message": "dsn postgres://u:" + url.QueryEscape(secret) + "@db refused",
				"tip": "check " + base64.StdEncoding.EncodeToString([]byte(secret))},
			"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "Failed", "message": "password " + secret + " rejected"}},
		},
	}}
	got := readAppStatus(obj)
	texts := []string{*got.Message, *got.Tip, got.Conditions[0].Message}
	for _, s := range texts {
		if strings.Contains(s, "9f81c2") || strings.Contains(s, url.QueryEscape(secret)) ||
			strings.Contains(s, base64.StdEncoding.EncodeToString([]byte(secret))[:8]) {
			t.Errorf("a status text holds the secret: %q", s)
		}
		if !strings.Contains(s, diagnostics.RedactedMarker) {
			t.Errorf("a status text was not redacted: %q", s)
		}
	}
}
