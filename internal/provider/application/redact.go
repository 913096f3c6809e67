package application

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// redactedMarker replaces a secret value in every text the provider emits.
const redactedMarker = "(sensitive value)"

// redactor replaces the values of sensitive_settings in texts: the second
// wall behind the engine's messages, which never print values. Every string
// leaf and the decimal form of every number is a secret; values of four
// characters or more are replaced wherever they occur, shorter ones only as
// a whole word (so a secret "on" does not garble every message).
type redactor struct {
	long  []string
	short *regexp.Regexp
}

// newRedactor collects the secrets of the given documents (nil documents are
// ignored).
func newRedactor(docs ...any) *redactor {
	set := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case string:
			if v != "" {
				set[v] = true
				if b, err := json.Marshal(v); err == nil {
					if q := string(b[1 : len(b)-1]); q != v {
						set[q] = true // as it appears inside JSON texts
					}
				}
			}
		case float64:
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				set[strconv.FormatFloat(v, 'f', -1, 64)] = true
			}
		case int64:
			set[strconv.FormatInt(v, 10)] = true
		case int:
			set[strconv.Itoa(v)] = true
		case json.Number:
			set[v.String()] = true
		case bool, nil:
			// true, false and null tell nothing.
		}
	}
	for _, d := range docs {
		walk(d)
	}
	r := &redactor{}
	var short []string
	for s := range set {
		if len(s) >= 4 {
			r.long = append(r.long, s)
		} else {
			short = append(short, regexp.QuoteMeta(s))
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	sort.Slice(r.long, func(i, j int) bool {
		if len(r.long[i]) != len(r.long[j]) {
			return len(r.long[i]) > len(r.long[j])
		}
		return r.long[i] < r.long[j]
	})
	if len(short) > 0 {
		sort.Strings(short)
		r.short = regexp.MustCompile(`(^|[^\pL\pN_])(` + strings.Join(short, "|") + `)($|[^\pL\pN_])`)
	}
	return r
}

// redact returns s with every secret replaced by redactedMarker.
func (r *redactor) redact(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.long {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, redactedMarker)
		}
	}
	if r.short != nil {
		// Replace until stable: adjacent matches share their separators.
		for range 4 {
			n := r.short.ReplaceAllString(s, "${1}"+redactedMarker+"${3}")
			if n == s {
				break
			}
			s = n
		}
	}
	return s
}

// diagnostics returns diags with every summary and detail redacted.
func (r *redactor) diagnostics(diags diag.Diagnostics) diag.Diagnostics {
	if r == nil || (len(r.long) == 0 && r.short == nil) || len(diags) == 0 {
		return diags
	}
	out := make(diag.Diagnostics, 0, len(diags))
	for _, d := range diags {
		summary, detail := r.redact(d.Summary()), r.redact(d.Detail())
		if summary == d.Summary() && detail == d.Detail() {
			out = append(out, d)
			continue
		}
		var nd diag.Diagnostic
		withPath, hasPath := d.(diag.DiagnosticWithPath)
		switch {
		case hasPath && d.Severity() == diag.SeverityError:
			nd = diag.NewAttributeErrorDiagnostic(withPath.Path(), summary, detail)
		case hasPath:
			nd = diag.NewAttributeWarningDiagnostic(withPath.Path(), summary, detail)
		case d.Severity() == diag.SeverityError:
			nd = diag.NewErrorDiagnostic(summary, detail)
		default:
			nd = diag.NewWarningDiagnostic(summary, detail)
		}
		out = append(out, nd)
	}
	return out
}
