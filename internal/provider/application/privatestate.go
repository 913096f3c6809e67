package application

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Keys of the resource's private state. Each holds one JSON value; a key
// that is absent holds the zero value. The names are those earlier versions
// of the provider wrote, so states they recorded read unchanged.
const (
	keySensitivePaths  = "sensitive_paths"
	keyApplyPending    = "apply_pending"
	keyUID             = "uid"
	keyImported        = "imported"
	keyResourceVersion = "resource_version"
	keyRetiredPaths    = "retired_sensitive_paths"
	keyTakenOverPaths  = "taken_over_settings_paths"
)

// privateState is the resource's private state: what the provider keeps
// about an Application beside the attributes, in the state file but never
// shown. It is read and written only through this file's codec.
type privateState struct {
	// SensitivePaths are the key paths the last write took from
	// sensitive_settings (paths only, never values; a key that may itself
	// be a secret is stored hashed, see sensitivePath). Read keeps them out
	// of settings and the plan refuses to drop them. Recorded reports
	// whether a write has recorded them: a state written before any write
	// (an import) has none.
	SensitivePaths []sensitivePath
	Recorded       bool
	// RetiredPaths are the paths earlier writes took from
	// sensitive_settings that the last write did not (removed, renamed):
	// DP's record of an earlier generation may still hold their values, so
	// they stay out of the state and of DP's texts like SensitivePaths until
	// DP has applied a generation without them (retiredPath).
	RetiredPaths []retiredPath
	// TakenOverPaths are the settings paths another manager owned before a
	// write that took them over (or may have): DP's record of an earlier
	// generation may hold that manager's values there, so they stay out of
	// last_applied_settings until DP has applied the write's generation
	// (retiredPath's Since). Unlike RetiredPaths they stay in settings, which
	// hold the configuration's values.
	TakenOverPaths []retiredPath
	// ApplyPending is set while DP has not applied the generation the last
	// write sent (its wait failed or timed out, or the write's reply was
	// lost): the next plan shows an update that applies and waits again.
	ApplyPending bool
	// UID is the UID of the Application this state manages: the
	// precondition of its delete, and what a refresh compares to tell the
	// Application from a newer one of the same name.
	UID string
	// Imported marks an imported Application not written by this resource
	// yet: which of its settings are secrets is unknown until the first
	// apply, so the state holds none of them (settings,
	// last_applied_settings and effective_settings stay null).
	Imported bool
	// ResourceVersion is metadata.resourceVersion of the Application as the
	// last create, update or refresh saw it.
	ResourceVersion string
}

// privateGetter and privateSetter are the private state of requests and
// responses.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// readPrivate decodes the private state of a request (nil: empty).
func readPrivate(ctx context.Context, from privateGetter) privateState {
	if from == nil {
		return privateState{}
	}
	return decodePrivate(func(key string) []byte {
		b, _ := from.GetKey(ctx, key)
		return b
	})
}

// privateFromMap decodes the private state as the protocol shortcuts hand
// it over (key → JSON value).
func privateFromMap(m map[string][]byte) privateState {
	return decodePrivate(func(key string) []byte { return m[key] })
}

// decodePrivate decodes each key; a value that does not decode is absent.
func decodePrivate(get func(string) []byte) privateState {
	var p privateState
	if b := get(keySensitivePaths); len(b) > 0 {
		var paths [][]string
		if json.Unmarshal(b, &paths) == nil {
			p.Recorded = true
			for _, sp := range paths {
				p.SensitivePaths = append(p.SensitivePaths, sensitivePath(sp))
			}
		}
	}
	if b := get(keyRetiredPaths); len(b) > 0 {
		_ = json.Unmarshal(b, &p.RetiredPaths)
	}
	if b := get(keyTakenOverPaths); len(b) > 0 {
		_ = json.Unmarshal(b, &p.TakenOverPaths)
	}
	var flag bool
	p.ApplyPending = len(get(keyApplyPending)) > 0 && json.Unmarshal(get(keyApplyPending), &flag) == nil && flag
	p.Imported = len(get(keyImported)) > 0 && json.Unmarshal(get(keyImported), &flag) == nil && flag
	_ = json.Unmarshal(get(keyUID), &p.UID)
	_ = json.Unmarshal(get(keyResourceVersion), &p.ResourceVersion)
	return p
}

// write stores every key of p (a zero value removes its key).
func (p privateState) write(ctx context.Context, to privateSetter) diag.Diagnostics {
	var diags diag.Diagnostics
	for key, value := range p.encode() {
		diags.Append(to.SetKey(ctx, key, value)...)
	}
	return diags
}

// encode returns the value of every key (nil for a zero value).
func (p privateState) encode() map[string][]byte {
	out := map[string][]byte{
		keySensitivePaths: nil, keyApplyPending: nil, keyUID: nil, keyImported: nil, keyResourceVersion: nil, keyRetiredPaths: nil,
		keyTakenOverPaths: nil,
	}
	if p.Recorded {
		paths := make([][]string, 0, len(p.SensitivePaths))
		for _, sp := range p.SensitivePaths {
			paths = append(paths, []string(sp))
		}
		out[keySensitivePaths], _ = json.Marshal(paths)
	}
	if len(p.RetiredPaths) > 0 {
		out[keyRetiredPaths], _ = json.Marshal(p.RetiredPaths)
	}
	if len(p.TakenOverPaths) > 0 {
		out[keyTakenOverPaths], _ = json.Marshal(p.TakenOverPaths)
	}
	if p.ApplyPending {
		out[keyApplyPending] = []byte(`true`)
	}
	if p.Imported {
		out[keyImported] = []byte(`true`)
	}
	if p.UID != "" {
		out[keyUID], _ = json.Marshal(p.UID)
	}
	if p.ResourceVersion != "" {
		out[keyResourceVersion], _ = json.Marshal(p.ResourceVersion)
	}
	return out
}

// equal reports whether p and o encode to the same private state.
func (p privateState) equal(o privateState) bool {
	a, b := p.encode(), o.encode()
	for k, v := range a {
		if string(v) != string(b[k]) {
			return false
		}
	}
	return true
}
