package application

import (
	"context"
	"net/http"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// The create shortcut creates an Application and answers exactly as the
// framework does, each against its own fake DP given the same requests:
// the state, the private data, the identity and the diagnostics, for a
// create DP applies, one with sensitive_settings (write-only, null in the
// state), one DP refuses (an error at the settings field DP names), and
// one whose wait ends with DP's rejection. Anything but a create goes to the
// framework.
func TestApplyShortcut_CreatesAsTheFramework(t *testing.T) {
	withSecret := demoConfig(map[string]any{"replicas": 2})
	withSecret.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"password": "s3cret"}})
	withSecret.SensitiveSettingsVersion = types.StringValue("1")
	refused := func(f *fakeDP) {
		f.failPatch = func() (int, any) {
			return http.StatusUnprocessableEntity, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
				"reason": "Invalid", "code": 422, "message": `admission webhook denied the request: field "replicas": must be at most 1`}
		}
	}
	tests := []struct {
		name    string
		config  applicationModel
		setup   func(*fakeDP)
		wantErr bool
	}{
		{name: "applied", config: demoConfig(map[string]any{"replicas": 2})},
		{name: "with sensitive settings", config: withSecret},
		{name: "refused by the API server", config: demoConfig(map[string]any{"replicas": 2}), setup: refused, wantErr: true},
		{name: "without waiting", config: func() applicationModel {
			c := demoConfig(map[string]any{"replicas": 2})
			c.Wait = types.BoolValue(false)
			return c
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			viaShortcut, viaFramework := newFakeDP(t), newFakeDP(t)
			if tt.setup != nil {
				tt.setup(viaShortcut)
				tt.setup(viaFramework)
			}
			s, f := newServers(t, viaShortcut.srv.URL, ""), newServers(t, viaFramework.srv.URL, "")
			req := createRequest(t, f.framework, tt.config)
			got, err := s.shortcut.ApplyResourceChange(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !s.answered() {
				t.Fatal("the shortcut did not answer the create")
			}
			want, err := f.framework.ApplyResourceChange(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if hasError(want.Diagnostics) != tt.wantErr {
				t.Fatalf("framework diagnostics: %s", diagText(want.Diagnostics))
			}
			assertSameApply(t, got, want)
			if tt.wantErr && (len(got.Diagnostics) == 0 || got.Diagnostics[0].Attribute == nil) {
				t.Fatalf("the error names no attribute: %+v", got.Diagnostics)
			}
			if g, w := viaShortcut.patchCount(), viaFramework.patchCount(); g != w || g != 1 {
				t.Fatalf("applies: shortcut %d, framework %d, want 1 each", g, w)
			}
		})
	}

	t.Run("not a create", func(t *testing.T) {
		dp := newFakeDP(t)
		s := newServers(t, dp.srv.URL, "")
		st := appState()
		req := createRequest(t, s.framework, demoConfig(map[string]any{"replicas": 2}))
		req.PriorState = encodeModel(t, st)
		if _, err := s.shortcut.ApplyResourceChange(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if s.answered() {
			t.Fatal("the shortcut answered an update")
		}
	})
	t.Run("planned private data", func(t *testing.T) {
		dp := newFakeDP(t)
		s := newServers(t, dp.srv.URL, "")
		req := createRequest(t, s.framework, demoConfig(map[string]any{"replicas": 2}))
		req.PlannedPrivate = []byte(`{"imported":"dHJ1ZQ=="}`)
		if _, err := s.shortcut.ApplyResourceChange(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if s.answered() {
			t.Fatal("the shortcut answered a create with planned private data")
		}
	})
}

// createRequest plans config as a new resource with srv and returns the
// apply request of that plan.
func createRequest(t *testing.T, srv tfprotov6.ProviderServer, config applicationModel) *tfprotov6.ApplyResourceChangeRequest {
	t.Helper()
	null, err := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	if err != nil {
		t.Fatal(err)
	}
	cfg := encodeModel(t, config)
	plan, err := srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, ProposedNewState: encodeModel(t, proposed(nil, config)), Config: cfg,
	})
	if err != nil || hasError(plan.Diagnostics) {
		t.Fatalf("plan: %v %s", err, diagText(plan.Diagnostics))
	}
	return &tfprotov6.ApplyResourceChangeRequest{
		TypeName: TypeName, PriorState: &null, PlannedState: plan.PlannedState, Config: cfg,
		PlannedPrivate: plan.PlannedPrivate, PlannedIdentity: plan.PlannedIdentity,
	}
}

func assertSameApply(t *testing.T, got, want *tfprotov6.ApplyResourceChangeResponse) {
	t.Helper()
	if g, w := decodeModel(t, got.NewState), decodeModel(t, want.NewState); !g.Equal(w) {
		t.Fatalf("new state differs from the framework's:\n got  %v\n want %v", g, w)
	}
	if string(got.Private) != string(want.Private) {
		t.Fatalf("private %q, framework %q", got.Private, want.Private)
	}
	typ := identityType()
	gi, err := got.NewIdentity.IdentityData.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	wi, err := want.NewIdentity.IdentityData.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !gi.Equal(wi) {
		t.Fatalf("identity %v, framework %v", gi, wi)
	}
	if len(got.Diagnostics) != len(want.Diagnostics) {
		t.Fatalf("diagnostics:\n got  %s\n want %s", diagText(got.Diagnostics), diagText(want.Diagnostics))
	}
	for i, g := range got.Diagnostics {
		w := want.Diagnostics[i]
		if g.Severity != w.Severity || g.Summary != w.Summary || g.Detail != w.Detail ||
			(g.Attribute == nil) != (w.Attribute == nil) || (g.Attribute != nil && !g.Attribute.Equal(w.Attribute)) {
			t.Fatalf("diagnostic %d:\n got  %+v\n want %+v", i, g, w)
		}
	}
}
