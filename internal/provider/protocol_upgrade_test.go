package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The state upgrade shortcut turns a stored state into the value the
// framework gives, and leaves states that do not fit the schema to it.
func TestUpgradeShortcut_DecodesStatesAsTheFramework(t *testing.T) {
	ctx := context.Background()
	stored, err := os.ReadFile(filepath.Join("testdata", "state", "application.json"))
	if err != nil {
		t.Fatal(err)
	}
	var base map[string]any
	if err := json.Unmarshal(stored, &base); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(stored, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dyn := func(value any, typ any) map[string]any { return map[string]any{"value": value, "type": typ} }
	tests := []struct {
		name      string
		state     []byte
		version   int64
		wantShort bool
	}{
		{name: "applied Application", state: stored, wantShort: true},
		{name: "numbers of every kind", state: edit(func(m map[string]any) {
			m["settings"] = dyn(map[string]any{"i": json.Number("7"), "neg": json.Number("-3"), "f": json.Number("0.1"),
				"big": json.Number("123456789012345678901234567890"), "exp": json.Number("1e3"), "tiny": json.Number("1e-400")},
				[]any{"object", map[string]any{"i": "number", "neg": "number", "f": "number", "big": "number", "exp": "number", "tiny": "number"}})
		}), wantShort: true},
		{name: "lists, maps, tuples and typed nulls", state: edit(func(m map[string]any) {
			m["settings"] = dyn(map[string]any{"l": []any{"a", "b"}, "m": map[string]any{"x": true}, "t": []any{json.Number("1"), "s"}, "n": nil},
				[]any{"object", map[string]any{"l": []any{"list", "string"}, "m": []any{"map", "bool"}, "t": []any{"tuple", []any{"number", "string"}}, "n": "string"}})
			m["labels"] = map[string]any{"team": "a", "env": "prod"}
			m["effective_settings"] = nil
		}), wantShort: true},
		{name: "attribute unknown to the schema dropped", state: edit(func(m map[string]any) { m["removed_attribute"] = "x" }), wantShort: true},
		{name: "missing attribute is null", state: edit(func(m map[string]any) { delete(m, "release_channel") }), wantShort: true},
		{name: "wrong type goes to the framework", state: edit(func(m map[string]any) { m["wait"] = "yes" })},
		{name: "dynamic value without its type goes to the framework", state: edit(func(m map[string]any) {
			m["settings"] = map[string]any{"value": map[string]any{}}
		})},
		{name: "older schema version goes to the framework", state: stored, version: 1},
	}
	fw := providerserver.NewProtocol6(New("test")())()
	typ := applicationSchemaInfo(ctx).typ
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &tfprotov6.UpgradeResourceStateRequest{TypeName: applicationTypeName, Version: tt.version, RawState: &tfprotov6.RawState{JSON: tt.state}}
			got, ok := upgradeCurrentState(ctx, req)
			if ok != tt.wantShort {
				t.Fatalf("shortcut taken = %v, want %v", ok, tt.wantShort)
			}
			if !ok {
				return
			}
			want, err := fw.UpgradeResourceState(ctx, req)
			if err != nil || len(want.Diagnostics) > 0 {
				t.Fatalf("framework: %v %v", err, want.Diagnostics)
			}
			g, err := got.UpgradedState.Unmarshal(typ)
			if err != nil {
				t.Fatalf("shortcut state does not decode: %v", err)
			}
			w, err := want.UpgradedState.Unmarshal(typ)
			if err != nil {
				t.Fatal(err)
			}
			if !g.Equal(w) {
				t.Fatalf("upgraded state differs from the framework's:\n got  %v\n want %v", g, w)
			}
		})
	}
}

var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

// FuzzUpgradeShortcut: any stored state either goes to the framework or
// decodes to the value the framework gives; nothing panics.
func FuzzUpgradeShortcut(f *testing.F) {
	stored, err := os.ReadFile(filepath.Join("testdata", "state", "application.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(stored)
	f.Add([]byte(`{"settings":{"value":{"a":1e999},"type":["object",{"a":"number"}]}}`))
	f.Add([]byte(`{"labels":{"a":"b"},"wait":true,"status":null}`))
	ctx := context.Background()
	fw := providerserver.NewProtocol6(New("test")())()
	typ := applicationSchemaInfo(ctx).typ
	f.Fuzz(func(t *testing.T, state []byte) {
		if hugeExponent.Match(state) {
			t.Skip("numbers with huge exponents take both decoders minutes to print")
		}
		req := &tfprotov6.UpgradeResourceStateRequest{TypeName: applicationTypeName, RawState: &tfprotov6.RawState{JSON: state}}
		got, ok := upgradeCurrentState(ctx, req)
		if !ok {
			return
		}
		g, err := got.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatalf("shortcut state does not decode: %v", err)
		}
		want, err := fw.UpgradeResourceState(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Diagnostics) > 0 {
			t.Fatalf("shortcut accepted a state the framework rejects: %v", want.Diagnostics)
		}
		w, err := want.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Equal(w) {
			t.Fatalf("upgraded state differs from the framework's:\n got  %v\n want %v", g, w)
		}
	})
}
