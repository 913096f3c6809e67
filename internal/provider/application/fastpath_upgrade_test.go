package application

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
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
		version      int64
		wantShortcut bool
	}{
		{name: "current version", raw: &tfprotov6.RawState{JSON: []byte(state + `}`)}, wantShortcut: true},
		{name: "attribute the schema no longer has", raw: &tfprotov6.RawState{JSON: []byte(state + `,"removed":"x"}`)}, wantShortcut: true},
		{
			// Written before status.conditions[*] and status.configuration_applied
			// had observed_generation: the new attributes decode as null.
			name: "status without observed_generation", wantShortcut: true,
			raw: &tfprotov6.RawState{JSON: []byte(state + `,"status":{"state":"Ready","message":null,"tip":null,"installed_version":"v1.0.0",` +
				`"urls":[],"configuration_applied":{"status":"True","reason":"ConfigurationApplied","message":null},` +
				`"conditions":[{"type":"ConfigurationApplied","status":"True","reason":"ConfigurationApplied","message":null}]}}`)},
		},
		{name: "another version", raw: &tfprotov6.RawState{JSON: []byte(state + `}`)}, version: 1},
		{name: "flatmap state", raw: &tfprotov6.RawState{Flatmap: map[string]string{"id": "demo/app"}}},
		{name: "JSON that does not fit the schema", raw: &tfprotov6.RawState{JSON: []byte(`{"name":{"a":1}}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &tfprotov6.UpgradeResourceStateRequest{TypeName: TypeName, Version: tt.version, RawState: tt.raw}
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
		})
	}
}
