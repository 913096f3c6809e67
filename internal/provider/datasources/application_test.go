package datasources

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
)

// DP's texts in the status may quote a setting, and any value of
// spec.settings may be a secret: the data source redacts every one of them
// from the summary message, the tip and the condition messages, also in
// URL-encoded and base64 form.
func TestReadStatus_DPTextsRedactedOfEverySetting(t *testing.T) {
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
	got := readStatus(obj)
	texts := []string{*got.Message, *got.Tip, *got.Conditions[0].Message}
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
