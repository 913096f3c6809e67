package diagnostics

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

func TestRedact_Texts(t *testing.T) {
	docs := map[string]any{
		"auth": map[string]any{
			"password": "hunter2-long-secret",
			"user":     "ab", // short: whole words only
		},
		"port":    float64(5432),
		"ratio":   1.5,
		"count":   int64(7),
		"nodes":   []any{"node-secret-1", json.Number("90210")},
		"enabled": true,
		"empty":   "",
		"nothing": nil,
	}
	r := NewRedactor(docs)
	for _, tc := range []struct{ name, in, want string }{
		{"long secret", "password hunter2-long-secret rejected", "password (sensitive value) rejected"},
		{"long secret inside a word", "xhunter2-long-secretx", "x(sensitive value)x"},
		{"long secret twice", "hunter2-long-secret/hunter2-long-secret", "(sensitive value)/(sensitive value)"},
		{"short secret as a word", "user ab is unknown", "user (sensitive value) is unknown"},
		{"short secret at the ends", "ab", "(sensitive value)"},
		{"short secret inside a word", "about tab", "about tab"},
		{"short secrets side by side", "7,7 and 7", "(sensitive value),(sensitive value) and (sensitive value)"},
		{"number from float64", "port 5432 is taken", "port (sensitive value) is taken"},
		{"fraction", "ratio 1.5 too high", "ratio (sensitive value) too high"},
		{"int64", "count 7 too low", "count (sensitive value) too low"},
		{"integer inside another number", "17 and 70", "17 and 70"},
		{"json.Number", "zip 90210", "zip (sensitive value)"},
		{"string in a list", "node node-secret-1 down", "node (sensitive value) down"},
		{"booleans are not secrets", "enabled is true", "enabled is true"},
		{"no secret", "must be at least 1", "must be at least 1"},
	} {
		if got := r.Redact(tc.in); got != tc.want {
			t.Errorf("%s: redact(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestRedact_LongestFirst(t *testing.T) {
	r := NewRedactor(map[string]any{"a": "abcd", "b": "abcdefgh"})
	if got := r.Redact("value abcdefgh"); got != "value (sensitive value)" {
		t.Fatalf("got %q: a secret containing another must be replaced whole", got)
	}
}

func TestRedact_JSONEscaped(t *testing.T) {
	secret := "pa\"ss\\wo\nrd<&>"
	r := NewRedactor(map[string]any{"password": secret})
	body, err := json.Marshal(map[string]any{"message": "invalid value " + secret})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Redact(string(body))
	if strings.Contains(got, "pa\\\"ss") || strings.Contains(got, "wo\\nrd") || !strings.Contains(got, RedactedMarker) {
		t.Fatalf("the JSON-escaped secret is not redacted: %s", got)
	}
	if got := r.Redact("invalid value " + secret); got != "invalid value "+RedactedMarker {
		t.Fatalf("the raw secret is not redacted: %q", got)
	}
}

func TestRedact_NilAndEmpty(t *testing.T) {
	var r *Redactor
	if got := r.Redact("anything"); got != "anything" {
		t.Fatalf("nil redactor changed the text: %q", got)
	}
	diags := diag.Diagnostics{diag.NewErrorDiagnostic("s", "d")}
	if got := r.Diagnostics(diags); len(got) != 1 || !got[0].Equal(diags[0]) {
		t.Fatalf("nil redactor changed diagnostics: %v", got)
	}
	empty := NewRedactor(nil, map[string]any{"on": true, "x": ""})
	if got := empty.Redact("on x true"); got != "on x true" {
		t.Fatalf("a redactor without secrets changed the text: %q", got)
	}
}

func TestRedact_DiagnosticsKeepSeverityAndPath(t *testing.T) {
	const secret = "s3cr3t-value"
	r := NewRedactor(map[string]any{"password": secret})
	at := path.Root("sensitive_settings").AtMapKey("auth").AtMapKey("password")
	in := diag.Diagnostics{
		diag.NewAttributeErrorDiagnostic(at, "bad "+secret, "detail "+secret),
		diag.NewAttributeWarningDiagnostic(at, "warn", "detail "+secret),
		diag.NewErrorDiagnostic("error "+secret, "plain"),
		diag.NewWarningDiagnostic("warning", secret),
		diag.NewErrorDiagnostic("untouched", "no secret here"),
	}
	out := r.Diagnostics(in)
	if len(out) != len(in) {
		t.Fatalf("got %d diagnostics, want %d", len(out), len(in))
	}
	for i, d := range out {
		if strings.Contains(d.Summary()+d.Detail(), secret) {
			t.Errorf("diagnostic %d still holds the secret: %q / %q", i, d.Summary(), d.Detail())
		}
		if d.Severity() != in[i].Severity() {
			t.Errorf("diagnostic %d: severity %v, want %v", i, d.Severity(), in[i].Severity())
		}
		wantPath, wantHas := in[i].(diag.DiagnosticWithPath)
		gotPath, gotHas := d.(diag.DiagnosticWithPath)
		if wantHas != gotHas {
			t.Errorf("diagnostic %d: has a path %v, want %v", i, gotHas, wantHas)
		} else if wantHas && !gotPath.Path().Equal(wantPath.Path()) {
			t.Errorf("diagnostic %d: path %s, want %s", i, gotPath.Path(), wantPath.Path())
		}
	}
	if out[0].Summary() != "bad "+RedactedMarker || out[0].Detail() != "detail "+RedactedMarker {
		t.Errorf("diagnostic 0: %q / %q", out[0].Summary(), out[0].Detail())
	}
	if !out[4].Equal(in[4]) {
		t.Errorf("a diagnostic without the secret changed: %v", out[4])
	}
}

// A secret is replaced in every form a text may carry it: numbers in other
// renderings, URL-encoded, base64 (whole or inside a longer base64 text),
// cut short, and map keys.
func TestRedact_EveryFormOfASecret(t *testing.T) {
	const pw = "p@ss w/rd:S3cr3t&x"
	r := NewRedactor(map[string]any{"password": pw, "limit": float64(1000000), "port": int64(65432)}).WithKeys([]string{"tenant-4f9a2c"})
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct{ name, in string }{
		{"exponent", "limit 1e+06 exceeded"},
		{"upper exponent", "limit 1E+06 exceeded"},
		{"float with a fraction digit", "limit 1000000.0 exceeded"},
		{"integer as a float", "port 65432.0 closed"},
		{"query-escaped", "dsn postgres://app:" + url.QueryEscape(pw) + "@db/app refused"},
		{"path-escaped", "dsn postgres://app:" + url.PathEscape(pw) + "@db/app refused"},
		{"lower-case escapes", "dsn " + strings.ToLower(url.QueryEscape(pw)) + " refused"},
		{"base64", "token " + b64(pw) + " invalid"},
		{"base64 without padding", "token " + strings.TrimRight(b64(pw), "=") + " invalid"},
		{"base64 URL alphabet", "token " + base64.URLEncoding.EncodeToString([]byte(pw)) + " invalid"},
		{"base64 inside a longer text, offset 0", "basic " + b64(pw+":suffix") + " invalid"},
		{"base64 inside a longer text, offset 1", "basic " + b64("u:"+pw) + " invalid"},
		{"base64 inside a longer text, offset 2", "basic " + b64("us:"+pw+"!") + " invalid"},
		{"cut short", "password " + pw[:11] + "… (truncated)"},
		{"cut short at the end", "password " + pw[:10]},
		{"map key", "key tenant-4f9a2c is not declared"},
	} {
		got := r.Redact(tc.in)
		if !strings.Contains(got, RedactedMarker) || strings.Contains(got, pw[:9]) || strings.Contains(got, "tenant-4f9a2c") ||
			strings.Contains(got, "1e+06") || strings.Contains(got, "65432") {
			t.Errorf("%s: redact(%q) = %q", tc.name, tc.in, got)
		}
	}
	if got := r.Redact("replicas must be at least 1"); got != "replicas must be at least 1" {
		t.Errorf("a text without secrets changed: %q", got)
	}
}

// TestRedact_WithValuesAddsSecretsAndKeepsEarlierOnes: values learnt later
// (another manager's settings seen in the written Application) are redacted
// beside the earlier secrets and keys.
func TestRedact_WithValuesAddsSecretsAndKeepsEarlierOnes(t *testing.T) {
	t.Parallel()
	r := NewRedactor(map[string]any{"password": "first-secret"}).WithKeys([]string{"secret-key"})
	if got := r.WithValues(nil); got != r {
		t.Errorf("no new value: want the same redactor")
	}
	got := r.WithValues(map[string]any{"auth": map[string]any{"token": "later-secret"}}).Redact("first-secret secret-key later-secret plain")
	want := RedactedMarker + " " + RedactedMarker + " " + RedactedMarker + " plain"
	if got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	var none *Redactor
	if none.WithValues("abcd").Redact("abcd") != RedactedMarker {
		t.Errorf("a nil redactor with values does not redact them")
	}
}
