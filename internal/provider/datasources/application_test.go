package datasources

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/appstatus"
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

// Each field of appstatus.SpecFields is an attribute of deckhouse_application
// (and so of the ephemeral resource, which has its schema), read from the
// object's spec; the listed ones are attributes of deckhouse_applications'
// items too.
func TestApplicationDataSources_ShowEverySpecField(t *testing.T) {
	t.Parallel()
	spec := map[string]any{}
	for _, f := range appstatus.SpecFields {
		spec[f.JSON] = jsonSample(f.Type)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "a", "namespace": "n"}, "spec": spec,
	}}
	one, item := applicationValue(obj).Attributes(), summarizeApplication(obj).Attributes()
	for _, f := range appstatus.SpecFields {
		if a, ok := applicationSchema().Attributes[f.Attr]; !ok || !a.IsComputed() {
			t.Errorf("deckhouse_application has no computed attribute %s", f.Attr)
		}
		if v := one[f.Attr]; v == nil || v.IsNull() {
			t.Errorf("deckhouse_application reads %s as %v from spec.%s", f.Attr, v, f.JSON)
		}
		if v := item[f.Attr]; f.Listed && (v == nil || v.IsNull()) {
			t.Errorf("deckhouse_applications' item reads %s as %v from spec.%s", f.Attr, v, f.JSON)
		}
	}
}

// jsonSample is a value of type t in the JSON data model with every field set.
func jsonSample(t attr.Type) any {
	switch t := t.(type) {
	case types.ObjectType:
		out := map[string]any{}
		for name, at := range t.AttrTypes {
			out[strcase(name)] = jsonSample(at)
		}
		return out
	case types.ListType:
		return []any{jsonSample(t.ElemType)}
	case types.MapType:
		return map[string]any{"k": jsonSample(t.ElemType)}
	}
	switch t {
	case types.Int64Type:
		return int64(1)
	case types.BoolType:
		return true
	}
	return "1"
}

// strcase is DP's JSON name of a Terraform attribute name.
func strcase(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}
