package diagnostics

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// RedactedMarker replaces a secret value in every text the provider emits.
const RedactedMarker = "(sensitive value)"

// Redactor replaces secret values (those of sensitive_settings, or every
// value of settings that may hold secrets) in texts: the second wall behind
// the engine's messages, which never print values. Every string
// leaf and every number is a secret, in each form a text may carry it: as
// given, JSON-escaped, URL-encoded (query and path escaping), base64 (the
// standard and URL alphabets, padded or not, also inside a longer base64
// text), numbers in every rendering Go and JSON produce (5432, 1e+06,
// 1E+06, 1000000.0), and cut short (a prefix of at least
// minTruncatedPrefix characters and half the secret, as DP's truncated
// messages end). Map keys that sensitive_settings adds (keys the schema does
// not declare as properties) are secrets too. Values of four characters or
// more are replaced wherever they occur, shorter ones only as a whole word
// (so a secret "on" does not garble every message).
type Redactor struct {
	all      map[string]bool // every form of every secret
	long     []string
	short    *regexp.Regexp
	prefixes []string // secrets long enough to be recognised cut short
}

// minTruncatedPrefix is the shortest prefix of a secret recognised as the
// secret cut short.
const minTruncatedPrefix = 8

// NewRedactor collects the secrets of the given documents (nil documents are
// ignored).
func NewRedactor(docs ...any) *Redactor {
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
			addStringForms(set, v)
		case float64:
			addFloatForms(set, v)
		case int64:
			addFloatForms(set, float64(v))
			set[strconv.FormatInt(v, 10)] = true
		case int:
			addFloatForms(set, float64(v))
			set[strconv.Itoa(v)] = true
		case json.Number:
			set[v.String()] = true
			if f, err := v.Float64(); err == nil {
				addFloatForms(set, f)
			}
		case bool, nil:
			// true, false and null tell nothing.
		}
	}
	for _, d := range docs {
		walk(d)
	}
	r := &Redactor{}
	r.build(set)
	return r
}

// WithKeys returns a Redactor that also replaces keys (map keys given in
// sensitive_settings).
func (r *Redactor) WithKeys(keys []string) *Redactor {
	if len(keys) == 0 {
		return r
	}
	set := map[string]bool{}
	for _, k := range keys {
		addStringForms(set, k)
	}
	return r.with(set)
}

// WithValues returns a Redactor that also replaces the values of docs (nil
// documents are ignored), for secrets learnt after the first ones.
func (r *Redactor) WithValues(docs ...any) *Redactor {
	more := NewRedactor(docs...)
	if len(more.all) == 0 {
		return r
	}
	return r.with(more.all)
}

// with returns a Redactor of r's secrets and those of set (which it takes).
func (r *Redactor) with(set map[string]bool) *Redactor {
	if r != nil {
		maps.Copy(set, r.all)
	}
	out := &Redactor{}
	out.build(set)
	return out
}

// addStringForms adds a string secret in every form a text may carry it.
func addStringForms(set map[string]bool, v string) {
	if v == "" {
		return
	}
	set[v] = true
	if b, err := json.Marshal(v); err == nil {
		if q := string(b[1 : len(b)-1]); q != v {
			set[q] = true // as it appears inside JSON texts
		}
	}
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		if e != v {
			set[e] = true
			set[strings.ToLower(e)] = true
		}
	}
	if len(v) < 4 {
		return
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		set[enc.EncodeToString([]byte(v))] = true
		set[strings.TrimRight(enc.EncodeToString([]byte(v)), "=")] = true
		// Inside a longer base64 text the secret starts at one of three
		// byte offsets; the characters that depend on it alone are these.
		for k := 1; k < 3; k++ {
			s := enc.EncodeToString(append(make([]byte, k), v...))
			start, end := (k+2)/3*4, (k+len(v))/3*4
			if end-start >= 8 {
				set[s[start:end]] = true
			}
		}
		if whole := (len(v) / 3) * 4; whole >= 8 {
			set[enc.EncodeToString([]byte(v))[:whole]] = true
		}
	}
}

// addFloatForms adds the renderings of a number.
func addFloatForms(set map[string]bool, v float64) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return
	}
	for _, f := range []byte{'f', 'e', 'E', 'g', 'G'} {
		set[strconv.FormatFloat(v, f, -1, 64)] = true
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		set[strconv.FormatFloat(v, 'f', 1, 64)] = true // 1000000.0
	}
}

// build sorts the secrets into long ones, short ones and prefixes.
func (r *Redactor) build(set map[string]bool) {
	r.all = set
	var short []string
	for s := range set {
		if len(s) >= 4 {
			r.long = append(r.long, s)
		} else {
			short = append(short, regexp.QuoteMeta(s))
		}
		if len(s) > minTruncatedPrefix {
			r.prefixes = append(r.prefixes, s)
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortFunc(r.long, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a, b)) })
	sort.Strings(r.prefixes)
	if len(short) > 0 {
		sort.Strings(short)
		r.short = regexp.MustCompile(`(^|[^\pL\pN_])(` + strings.Join(short, "|") + `)($|[^\pL\pN_])`)
	}
}

// Redact returns s with every secret replaced by RedactedMarker.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.long {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, RedactedMarker)
		}
	}
	s = r.redactPrefixes(s)
	if r.short != nil {
		// Replace until stable: adjacent matches share their separators.
		for range 4 {
			n := r.short.ReplaceAllString(s, "${1}"+RedactedMarker+"${3}")
			if n == s {
				break
			}
			s = n
		}
	}
	return s
}

// redactPrefixes replaces a secret cut short: a run of at least
// minTruncatedPrefix characters, and at least half the secret, that is the
// secret's beginning.
func (r *Redactor) redactPrefixes(s string) string {
	for _, v := range r.prefixes {
		need := max(minTruncatedPrefix, (len(v)+1)/2)
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], v[:need])
			if i < 0 {
				break
			}
			i += from
			n := need
			for n < len(v) && i+n < len(s) && s[i+n] == v[n] {
				n++
			}
			s = s[:i] + RedactedMarker + s[i+n:]
			from = i + len(RedactedMarker)
		}
	}
	return s
}

// Diagnostics returns diags with every summary and detail redacted.
func (r *Redactor) Diagnostics(diags diag.Diagnostics) diag.Diagnostics {
	if r == nil || (len(r.long) == 0 && r.short == nil) || len(diags) == 0 {
		return diags
	}
	out := make(diag.Diagnostics, 0, len(diags))
	for _, d := range diags {
		summary, detail := r.Redact(d.Summary()), r.Redact(d.Detail())
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
