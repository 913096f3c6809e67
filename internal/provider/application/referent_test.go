package application

import (
	"net/url"
	"strings"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// A field with x-deckhouse-ui-resource-name given in sensitive_settings is
// not looked up by name (the name would be in the request's URL, so in the
// API server's audit log and in debug logs): the plan says it was not
// checked, and no request carries it. The same field in settings is looked
// up.
func TestPlan_ReferentFromSensitiveSettingsNotLookedUpByName(t *testing.T) {
	const name = "tls-secret-name-8c1e"
	for _, given := range []string{"settings", "sensitive_settings"} {
		t.Run(given, func(t *testing.T) {
			h := newHarness(t)
			cfg := demoConfig(map[string]any{"replicas": 2})
			if given == "settings" {
				cfg.Settings = convert.ToDynamic(map[string]any{"replicas": 2, "tlsSecretName": name})
			} else {
				cfg.SensitiveSettings = convert.ToDynamic(map[string]any{"tlsSecretName": name})
			}
			st := h.planAndApply(nil, nil, cfg)
			if hasError(st.plan.Diagnostics) {
				t.Fatalf("plan: %s", diagText(st.plan.Diagnostics))
			}
			var lookedUp bool
			for _, r := range h.dp.allRequests() {
				if strings.Contains(r, name) || strings.Contains(r, url.PathEscape(name)) {
					lookedUp = true
				}
			}
			text := diagText(st.plan.Diagnostics)
			switch given {
			case "settings":
				if !lookedUp || !strings.Contains(text, "Referenced object not found") {
					t.Fatalf("a referent in settings was not looked up:\n%s", text)
				}
			default:
				if lookedUp {
					t.Fatalf("a request carries the name from sensitive_settings: %v", h.dp.allRequests())
				}
				if !strings.Contains(text, "Referenced object not checked") || strings.Contains(text, name) {
					t.Fatalf("the plan does not say the referent was not checked, or names it:\n%s", text)
				}
			}
		})
	}
}
