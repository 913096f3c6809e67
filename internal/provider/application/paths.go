package application

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// Helpers on settings documents in the JSON data model (map[string]any,
// []any, string, bool, numbers, nil). They never log or print values.

// leafPaths lists the key paths of every non-object value (and every empty
// object) in doc, sorted. The root itself is never a leaf.
func leafPaths(doc any) [][]string {
	var out [][]string
	var walk func(v any, p []string)
	walk = func(v any, p []string) {
		m, ok := v.(map[string]any)
		if !ok || (len(m) == 0 && len(p) > 0) {
			out = append(out, append([]string(nil), p...))
			return
		}
		for k, e := range m {
			walk(e, append(p, k))
		}
	}
	if m, ok := doc.(map[string]any); ok && len(m) > 0 {
		walk(m, nil)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
	return out
}

// stripPaths returns a copy of doc without the values at paths. An object
// emptied by the removal is removed too, unless keep reports that the user
// declared that (empty) object.
func stripPaths(doc any, paths [][]string, keep func(p []string) bool) any {
	out := engine.Merge(map[string]any{}, doc) // a deep copy
	root, ok := out.(map[string]any)
	if !ok {
		return out
	}
	for _, p := range paths {
		removePath(root, p, nil, keep)
	}
	return root
}

func removePath(m map[string]any, p, prefix []string, keep func([]string) bool) {
	if len(p) == 0 {
		return
	}
	if len(p) == 1 {
		delete(m, p[0])
		return
	}
	child, ok := m[p[0]].(map[string]any)
	if !ok {
		return
	}
	here := append(append([]string(nil), prefix...), p[0])
	wasEmpty := len(child) == 0
	removePath(child, p[1:], here, keep)
	if !wasEmpty && len(child) == 0 && (keep == nil || !keep(here)) {
		delete(m, p[0])
	}
}

// lookupPath returns the value at a key path.
func lookupPath(doc any, p []string) (any, bool) {
	cur := doc
	for _, k := range p {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// sensitivePath is the key path of a value written from sensitive_settings,
// as the private state records it. A key the settings schema declares as a
// property is recorded as it is; any other key (a map key, which may itself
// be a secret) is recorded hashed with the Application's namespace and
// name, so the state file never holds it: a hashed segment is hashedKey
// followed by the hex SHA-256.
type sensitivePath []string

// hashedKey starts a hashed segment (no settings key starts with NUL).
const hashedKey = "\x00sha256:"

// keyHash is the hashed segment of key for the Application salt.
func keyHash(salt, key string) string {
	sum := sha256.Sum256([]byte(salt + "\x00" + key))
	return hashedKey + hex.EncodeToString(sum[:])
}

// appSalt is the salt of the hashed keys of an Application.
func appSalt(namespace, name string) string { return namespace + "/" + name }

// declaredFunc reports whether a key path leads through declared
// properties only (its last key included).
type declaredFunc func(p []string) bool

// declaredPaths returns the declaredFunc of a settings schema's fields.
func declaredPaths(fields []engine.Field) declaredFunc {
	set := map[string]bool{}
	for _, f := range fields {
		var keys []string
		for _, seg := range f.Path {
			if seg.IsIndex {
				keys = nil
				break
			}
			keys = append(keys, seg.Key)
		}
		if keys != nil {
			set[strings.Join(keys, "\x00")] = true
		}
	}
	return func(p []string) bool {
		var at []string
		for _, k := range p {
			if k == "*" || !set[strings.Join(append(at, k), "\x00")] {
				return false
			}
			at = append(at, k)
		}
		return true
	}
}

// secretPaths lists the key paths of the values of sensitive_settings that a
// write sends (null leaves remove a setting and are not secrets), each key
// that declared does not accept hashed. A nil declared hashes nothing.
func secretPaths(sensitive any, declared declaredFunc, salt string) []sensitivePath {
	var out []sensitivePath
	for _, p := range leafPaths(sensitive) {
		v, ok := lookupPath(sensitive, p)
		if !ok || v == nil {
			continue
		}
		sp := make(sensitivePath, len(p))
		for i, k := range p {
			if declared != nil && !declared(p[:i+1]) {
				sp[i] = keyHash(salt, k)
			} else {
				sp[i] = k
			}
		}
		out = append(out, sp)
	}
	return out
}

// undeclaredKeys lists the keys of doc that declared does not accept (the
// map keys sensitive_settings adds): secrets for the redactor.
func undeclaredKeys(doc any, declared declaredFunc) []string {
	if declared == nil {
		return nil
	}
	var out []string
	var walk func(v any, p []string)
	walk = func(v any, p []string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, e := range m {
			q := append(append([]string(nil), p...), k)
			if !declared(q) {
				out = append(out, k)
			}
			walk(e, q)
		}
	}
	walk(doc, nil)
	return out
}

// resolve finds sp in doc: the plain key path, and its value.
func (sp sensitivePath) resolve(doc any, salt string) ([]string, any, bool) {
	cur := doc
	plain := make([]string, 0, len(sp))
	for _, seg := range sp {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil, false
		}
		key, found := seg, false
		if strings.HasPrefix(seg, hashedKey) {
			for k := range m {
				if keyHash(salt, k) == seg {
					key, found = k, true
					break
				}
			}
		} else {
			_, found = m[seg]
		}
		if !found {
			return nil, nil, false
		}
		plain = append(plain, key)
		cur = m[key]
	}
	return plain, cur, true
}

// resolvePaths returns the plain key paths of the sps that doc holds.
func resolvePaths(doc any, sps []sensitivePath, salt string) [][]string {
	out := make([][]string, 0, len(sps))
	for _, sp := range sps {
		if p, _, ok := sp.resolve(doc, salt); ok {
			out = append(out, p)
		}
	}
	return out
}

// display is the path as diagnostics name it: a hashed key shows as "*".
func (sp sensitivePath) display() string {
	parts := make([]string, len(sp))
	for i, seg := range sp {
		if strings.HasPrefix(seg, hashedKey) {
			seg = "*"
		}
		parts[i] = seg
	}
	return strings.Join(parts, ".")
}

// hashed reports whether sp holds a hashed key.
func (sp sensitivePath) hashed() bool {
	for _, seg := range sp {
		if strings.HasPrefix(seg, hashedKey) {
			return true
		}
	}
	return false
}

// isEmptyDoc reports whether doc is nil or an empty object.
func isEmptyDoc(doc any) bool {
	if doc == nil {
		return true
	}
	m, ok := doc.(map[string]any)
	return ok && len(m) == 0
}

// Secrets across generations. A write records the paths it took from
// sensitive_settings (privateState.SensitivePaths). When a later write no
// longer takes a path (removed from sensitive_settings, or renamed), DP's
// record (status.lastAppliedConfiguration) and its texts may still hold the
// old value: DP applies the new generation later (wait = false), or never
// (it rejected it, or the wait timed out). Such a path is kept as retired,
// with the generation of the first write without it, until DP's record is
// of that generation or a later one: ConfigurationApplied True with that
// observedGeneration (dpclient.AppliedGeneration). Only paths are kept, never
// values, hashes of values or lengths: a rotated value (the same path with
// a new value) needs nothing more, since DP's record and spec.settings hold
// the old value at the same path, where the redactor reads it.

// retiredPath is a path an earlier write took from sensitive_settings and
// the last write did not. Since is the generation of the first write known
// to have landed without it; 0 while no such write is known (the reply of
// the write was lost), which no applied generation settles.
type retiredPath struct {
	Path  sensitivePath `json:"path"`
	Since int64         `json:"since,omitempty"`
}

// tracked lists every path whose values stay secret: the last write's and
// the retired ones.
func (p privateState) tracked() []sensitivePath {
	if len(p.RetiredPaths) == 0 {
		return p.SensitivePaths
	}
	out := append([]sensitivePath(nil), p.SensitivePaths...)
	for _, r := range p.RetiredPaths {
		out = append(out, r.Path)
	}
	return out
}

// afterWrite returns the retired paths after a write of generation gen
// (0: the write may not have landed) that took paths from
// sensitive_settings: every path p tracked that the write does not take,
// retired since gen unless it was retired before.
func (p privateState) afterWrite(paths []sensitivePath, gen int64, salt string) []retiredPath {
	var out []retiredPath
	add := func(sp sensitivePath, since int64) {
		if !containsPath(paths, sp, salt) {
			out = addRetired(out, sp, since, salt)
		}
	}
	for _, r := range p.RetiredPaths {
		add(r.Path, sinceOr(r.Since, gen))
	}
	for _, sp := range p.SensitivePaths {
		add(sp, gen)
	}
	return out
}

// takenOverAfterWrite returns the taken-over settings paths after a write
// of generation gen (0: the write may not have landed) that took over
// taken, the settings paths another manager owned before it.
func (p privateState) takenOverAfterWrite(taken [][]string, gen int64, salt string) []retiredPath {
	var out []retiredPath
	for _, r := range p.TakenOverPaths {
		out = addRetired(out, r.Path, sinceOr(r.Since, gen), salt)
	}
	for _, t := range taken {
		out = addRetired(out, sensitivePath(t), gen, salt)
	}
	return out
}

// addRetired adds sp, kept since generation since, to list: a path listed
// already keeps the earlier known generation.
func addRetired(list []retiredPath, sp sensitivePath, since int64, salt string) []retiredPath {
	for i, r := range list {
		if samePath(r.Path, sp, salt) {
			if r.Since == 0 || (since != 0 && since < r.Since) {
				list[i].Since = since
			}
			return list
		}
	}
	return append(list, retiredPath{Path: sp, Since: since})
}

// sinceOr is since, or gen while since is unknown (0).
func sinceOr(since, gen int64) int64 {
	if since == 0 {
		return gen
	}
	return since
}

// recordPaths lists every path kept out of last_applied_settings (DP's
// record) beside the foreign ones: the tracked and the taken-over paths.
func (p privateState) recordPaths() []sensitivePath {
	out := p.tracked()
	if len(p.TakenOverPaths) == 0 {
		return out
	}
	out = append([]sensitivePath(nil), out...)
	for _, r := range p.TakenOverPaths {
		out = append(out, r.Path)
	}
	return out
}

// settled returns p without the retired and taken-over paths DP's record
// no longer holds: DP applied generation applied (dpclient.AppliedGeneration),
// which is at or after the first write without them (or that took them
// over).
func (p privateState) settled(applied int64) privateState {
	if applied == 0 {
		return p
	}
	p.RetiredPaths = settledPaths(p.RetiredPaths, applied)
	p.TakenOverPaths = settledPaths(p.TakenOverPaths, applied)
	return p
}

func settledPaths(list []retiredPath, applied int64) []retiredPath {
	var keep []retiredPath
	for _, r := range list {
		if r.Since == 0 || applied < r.Since {
			keep = append(keep, r)
		}
	}
	return keep
}

// samePath reports whether two recorded paths name the same key path: a
// segment may be hashed in one and plain in the other (a write that could
// not read the settings schema hashes no key).
func samePath(a, b sensitivePath, salt string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		switch {
		case x == y:
		case strings.HasPrefix(x, hashedKey) && !strings.HasPrefix(y, hashedKey):
			if keyHash(salt, y) != x {
				return false
			}
		case strings.HasPrefix(y, hashedKey) && !strings.HasPrefix(x, hashedKey):
			if keyHash(salt, x) != y {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func containsPath(paths []sensitivePath, sp sensitivePath, salt string) bool {
	for _, p := range paths {
		if samePath(p, sp, salt) {
			return true
		}
	}
	return false
}
