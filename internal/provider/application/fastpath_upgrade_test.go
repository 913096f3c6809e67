package application

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// The upgrade shortcut answers the upgrade of a state of the current schema
// version as the framework does (attributes the schema no longer has are
// dropped), and leaves other versions, flatmap states and JSON that does not
// fit the schema to the framework.
func TestUpgradeShortcut_AnswersCurrentStatesAsTheFramework(t *testing.T) {
	const state = `{"id":"demo/app","name":"app","namespace":"demo","package_name":"demo-app","package_version":"v1.0.0",` +
		`"wait":true,"immutable_field_change":"Error","labels":{"team":"a"},` +
		`"settings":{"value":{"replicas":2,"ingress":{"host":"a.example.com"}},"type":["object",{"replicas":"number","ingress":["object",{"host":"string"}]}]}`
	tests := []struct {
		name         string
		raw          *tfprotov6.RawState
		prior        bool // a state of the version before stateVersion
		wantShortcut bool
		wantStored   bool // the answer is the stored JSON
	}{
		{name: "current version", raw: &tfprotov6.RawState{JSON: []byte(state + `}`)}, wantShortcut: true, wantStored: true},
		// The framework drops what the schema no longer has.
		{name: "attribute the schema no longer has", raw: &tfprotov6.RawState{JSON: []byte(state + `,"removed":"x"}`)}},
		{name: "nested attribute the schema no longer has",
			raw: &tfprotov6.RawState{JSON: []byte(state + `,"status":{"state":"Ready","removed":1}}`)}},
		{
			// Written before status.configuration_applied had
			// observed_generation: the new attribute decodes as null.
			name: "status without observed_generation", wantShortcut: true, wantStored: true,
			raw: &tfprotov6.RawState{JSON: []byte(state + `,"status":{"state":"Ready","message":null,"tip":null,"installed_version":"v1.0.0",` +
				`"urls":[],"configuration_applied":{"status":"True","reason":"ConfigurationApplied","message":null}}}`)},
		},
		{
			// The framework's upgrader (UpgradeState) answers an earlier version.
			name: "earlier version", prior: true,
			raw: &tfprotov6.RawState{JSON: []byte(state + `,"status":{"state":"Ready","message":null,"tip":null,"installed_version":"v1.0.0",` +
				`"urls":[],"configuration_applied":{"status":"True","reason":"ConfigurationApplied","message":null},` +
				`"conditions":[{"type":"ConfigurationApplied","status":"True","reason":"ConfigurationApplied","message":null}]}}`)},
		},
		{name: "flatmap state", raw: &tfprotov6.RawState{Flatmap: map[string]string{"id": "demo/app"}}},
		{name: "JSON that does not fit the schema", raw: &tfprotov6.RawState{JSON: []byte(`{"name":{"a":1}}`)}},
	}
	tests = append(tests, struct {
		name         string
		raw          *tfprotov6.RawState
		prior        bool
		wantShortcut bool
		wantStored   bool
	}{name: "a whole state as the CLI stores it", raw: &tfprotov6.RawState{JSON: storedJSON(t, appState())}, wantShortcut: true, wantStored: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := int64(stateVersion)
			if tt.prior {
				version--
			}
			req := &tfprotov6.UpgradeResourceStateRequest{TypeName: TypeName, Version: version, RawState: tt.raw}
			s := newServers(t, "", "")
			got, want, ok := compare(t, s, tt.wantShortcut, req, tfprotov6.ProviderServer.UpgradeResourceState)
			if !ok {
				return
			}
			if len(want.Diagnostics) > 0 {
				t.Fatalf("framework diagnostics: %v", want.Diagnostics[0])
			}
			if g, w := decodeModel(t, got.UpgradedState), decodeModel(t, want.UpgradedState); !g.Equal(w) {
				t.Fatalf("upgraded state differs:\n shortcut  %v\n framework %v", g, w)
			}
			if stored := len(got.UpgradedState.JSON) > 0; stored != tt.wantStored {
				t.Fatalf("answered with the stored JSON: %v, want %v", stored, tt.wantStored)
			}
			assertCLIReadsTheSame(t, got.UpgradedState, want.UpgradedState)
		})
	}
}

// assertCLIReadsTheSame decodes both answers as the CLIs do (go-cty's JSON
// or MessagePack decoding with the schema's type) and compares the values.
func assertCLIReadsTheSame(t *testing.T, got, want *tfprotov6.DynamicValue) {
	t.Helper()
	ty := ctyStateType(t)
	decode := func(dv *tfprotov6.DynamicValue) cty.Value {
		var v cty.Value
		var err error
		if len(dv.MsgPack) > 0 {
			v, err = ctymsgpack.Unmarshal(dv.MsgPack, ty)
		} else {
			v, err = ctyjson.Unmarshal(dv.JSON, ty)
		}
		if err != nil {
			t.Fatalf("the CLI cannot decode the answer: %v", err)
		}
		return v
	}
	if g, w := decode(got), decode(want); !g.RawEquals(w) {
		t.Fatalf("the CLI reads\n %#v\nfrom the shortcut, and\n %#v\nfrom the framework", g, w)
	}
}

// storedJSON is state m as the CLIs store it: go-cty's JSON encoding with
// the schema's type.
func storedJSON(t *testing.T, m applicationModel) []byte {
	t.Helper()
	ty := ctyStateType(t)
	v, err := ctymsgpack.Unmarshal(encodeModel(t, m).MsgPack, ty)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ctyjson.Marshal(v, ty)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ctyStateType(t *testing.T) cty.Type {
	t.Helper()
	return ctyType(t, stateType())
}

// ctyType is the go-cty type of a Terraform type.
func ctyType(t *testing.T, typ tftypes.Type) cty.Type {
	t.Helper()
	switch tt := typ.(type) {
	case tftypes.Object:
		attrs := map[string]cty.Type{}
		for name, at := range tt.AttributeTypes {
			attrs[name] = ctyType(t, at)
		}
		return cty.Object(attrs)
	case tftypes.List:
		return cty.List(ctyType(t, tt.ElementType))
	case tftypes.Set:
		return cty.Set(ctyType(t, tt.ElementType))
	case tftypes.Map:
		return cty.Map(ctyType(t, tt.ElementType))
	case tftypes.Tuple:
		var elems []cty.Type
		for _, et := range tt.ElementTypes {
			elems = append(elems, ctyType(t, et))
		}
		return cty.Tuple(elems)
	}
	switch {
	case typ.Is(tftypes.String):
		return cty.String
	case typ.Is(tftypes.Number):
		return cty.Number
	case typ.Is(tftypes.Bool):
		return cty.Bool
	case typ.Is(tftypes.DynamicPseudoType):
		return cty.DynamicPseudoType
	}
	t.Fatalf("no cty type for %s", typ)
	return cty.NilType
}
