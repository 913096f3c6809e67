package application

import (
	"context"
	"net/http"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
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
		f.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodPatch {
				return false
			}
			dpfake.Status(w, http.StatusUnprocessableEntity, "Invalid", `admission webhook denied the request: field "replicas": must be at most 1`)
			return true
		})
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
			s, f := newServers(t, viaShortcut.URL, ""), newServers(t, viaFramework.URL, "")
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
		s := newServers(t, dp.URL, "")
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
		s := newServers(t, dp.URL, "")
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
	assertSameIdentity(t, got.NewIdentity, want.NewIdentity)
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

// The delete shortcut deletes the Application exactly as the framework
// does, each against its own fake DP, given the destroy plan the CLIs make
// themselves (the provider does not announce PlanDestroy): the prior private
// state and no planned identity (OpenTofu 1.12 and Terraform 1.12 and later
// plan no identity for a destroy; earlier Terraform knows none). A delete
// that ends empties state, private data and identity; one that fails (a
// finalizer that never ends, past timeouts.delete) keeps state and private
// data, with the same error.
func TestDestroyShortcut_DeletesAsTheFramework(t *testing.T) {
	shortTimeout := demoConfig(map[string]any{"replicas": 2})
	shortTimeout.Timeouts = timeouts.Value{Object: types.ObjectValueMust(
		map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType},
		map[string]attr.Value{"create": types.StringNull(), "update": types.StringNull(), "delete": types.StringValue("1s")})}
	tests := []struct {
		name       string
		config     applicationModel
		keep       bool
		noIdentity bool
		wantErr    bool
	}{
		{name: "deleted", config: demoConfig(map[string]any{"replicas": 2}), noIdentity: true},
		{name: "deleted, planned identity", config: demoConfig(map[string]any{"replicas": 2})},
		{name: "finalizer past the delete timeout", config: shortTimeout, keep: true, wantErr: true, noIdentity: true},
		{name: "finalizer past the delete timeout, planned identity", config: shortTimeout, keep: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			viaShortcut, viaFramework := newFakeDP(t), newFakeDP(t)
			s, f := newServers(t, viaShortcut.URL, ""), newServers(t, viaFramework.URL, "")
			create := createRequest(t, f.framework, tt.config)
			var created *tfprotov6.ApplyResourceChangeResponse
			for _, srv := range []tfprotov6.ProviderServer{s.framework, f.framework} {
				resp, err := srv.ApplyResourceChange(ctx, create)
				if err != nil || hasError(resp.Diagnostics) {
					t.Fatalf("create: %v %s", err, diagText(resp.Diagnostics))
				}
				created = resp
			}
			viaShortcut.KeepOnDelete(tt.keep)
			viaFramework.KeepOnDelete(tt.keep)
			null, err := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
			if err != nil {
				t.Fatal(err)
			}
			identity := created.NewIdentity
			if tt.noIdentity {
				identity = nil
			}
			del := &tfprotov6.ApplyResourceChangeRequest{TypeName: TypeName, PriorState: created.NewState,
				PlannedState: &null, Config: &null, PlannedPrivate: created.Private, PlannedIdentity: identity}
			got, err := s.shortcut.ApplyResourceChange(ctx, del)
			if err != nil {
				t.Fatal(err)
			}
			if !s.answered() {
				t.Fatal("the shortcut did not answer the delete")
			}
			want, err := f.framework.ApplyResourceChange(ctx, del)
			if err != nil {
				t.Fatal(err)
			}
			if hasError(want.Diagnostics) != tt.wantErr {
				t.Fatalf("framework diagnostics: %s", diagText(want.Diagnostics))
			}
			if !tt.wantErr && (!isNullState(t, got.NewState) || !isNullState(t, want.NewState)) {
				t.Fatal("a delete without errors left a state")
			}
			assertSameApply(t, got, want)
		})
	}
}

func isNullState(t *testing.T, dv *tfprotov6.DynamicValue) bool {
	t.Helper()
	return decodeModel(t, dv).IsNull()
}

func assertSameIdentity(t *testing.T, got, want *tfprotov6.ResourceIdentityData) {
	t.Helper()
	typ := identityType()
	gi, err := got.IdentityData.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	wi, err := want.IdentityData.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !gi.Equal(wi) {
		t.Fatalf("identity %v, framework %v", gi, wi)
	}
}

// The create shortcut records the planned state with only the attributes of
// createFills encoded again: a create (through the framework, which encodes
// every attribute) changes no other attribute of the plan.
func TestCreate_ChangesOnlyTheAttributesOfCreateFills(t *testing.T) {
	noRepo := demoConfig(map[string]any{"replicas": 2})
	noRepo.PackageRepositoryName = types.StringNull()
	noWait := demoConfig(map[string]any{"replicas": 2})
	noWait.Wait = types.BoolValue(false)
	withSecret := demoConfig(map[string]any{"replicas": 2})
	withSecret.SensitiveSettings = convert.ToDynamic(map[string]any{"auth": map[string]any{"password": "s3cret"}})
	withSecret.SensitiveSettingsVersion = types.StringValue("1")
	fills := map[string]bool{}
	for _, name := range createFills {
		fills[name] = true
	}
	for name, cfg := range map[string]applicationModel{
		"applied": demoConfig(map[string]any{"replicas": 2}), "repository resolved": noRepo, "without waiting": noWait,
		"with sensitive settings": withSecret,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			st := h.planAndApply(nil, nil, cfg)
			if st.apply == nil || hasError(st.apply.Diagnostics) {
				t.Fatalf("create failed: %s", diagText(st.plan.Diagnostics))
			}
			var planned, recorded map[string]tftypes.Value
			if err := decodeModel(t, st.plan.PlannedState).As(&planned); err != nil {
				t.Fatal(err)
			}
			if err := decodeModel(t, st.apply.NewState).As(&recorded); err != nil {
				t.Fatal(err)
			}
			for attr, v := range recorded {
				if !v.Equal(planned[attr]) && !fills[attr] {
					t.Errorf("create changed %s (not in createFills): planned %v, recorded %v", attr, planned[attr], v)
				}
			}
		})
	}
}
