package application

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// A refresh that finds another Application (another UID) under the
// namespace and name of the state removes the resource from the state with
// a warning, instead of recording the newcomer's UID: a destroy, which
// refreshes first, then never deletes it.
func TestRead_ForeignUIDRemovesTheResourceFromState(t *testing.T) {
	h := newHarness(t)
	_, created := createWithSecret(t, h)
	h.dp.editApp("app", func(md, _ map[string]any) { md["uid"] = "uid-newcomer" })
	resp := h.read(created.state, created.private)
	if hasError(resp.Diagnostics) {
		t.Fatalf("read: %s", diagText(resp.Diagnostics))
	}
	if v := decodeModel(t, resp.NewState); !v.IsNull() {
		t.Fatalf("the state still holds the resource: %v", v)
	}
	if !strings.Contains(diagText(resp.Diagnostics), "uid-newcomer") {
		t.Fatalf("no warning names the newcomer:\n%s", diagText(resp.Diagnostics))
	}
	if strings.Contains(string(resp.Private), "uid-newcomer") {
		t.Fatal("the newcomer's UID was recorded")
	}
}

// A refresh that removes the resource from the state (the Application was
// deleted, or another one took its name) still answers its identity: a
// client that sends none (Terraform and OpenTofu before 1.12) gets it from
// the read, and the framework fails a read without one ("Missing Resource
// Identity After Read") instead of planning a create.
func TestRead_RemovedFromStateStillAnswersTheIdentity(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(h *harness)
	}{
		{"deleted", func(h *harness) { h.dp.Reset() }},
		{"replaced", func(h *harness) { h.dp.editApp("app", func(md, _ map[string]any) { md["uid"] = "uid-newcomer" }) }},
	} {
		for _, sendsIdentity := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, client sends identity %v", tc.name, sendsIdentity), func(t *testing.T) {
				h := newHarness(t)
				_, created := createWithSecret(t, h)
				tc.change(h)
				req := &tfprotov6.ReadResourceRequest{TypeName: TypeName, CurrentState: created.state, Private: created.private}
				if sendsIdentity {
					req.CurrentIdentity = encodeIdentity(t, "demo", "app")
				}
				resp, err := h.srv.ReadResource(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if hasError(resp.Diagnostics) {
					t.Fatalf("read: %s", diagText(resp.Diagnostics))
				}
				if v := decodeModel(t, resp.NewState); !v.IsNull() {
					t.Fatalf("the state still holds the resource: %v", v)
				}
				if resp.NewIdentity == nil || resp.NewIdentity.IdentityData == nil {
					t.Fatal("no identity")
				}
				got, err := resp.NewIdentity.IdentityData.Unmarshal(identityType())
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := encodeIdentity(t, "demo", "app").IdentityData.Unmarshal(identityType()); !got.Equal(want) {
					t.Fatalf("identity %v, want %v", got, want)
				}
			})
		}
	}
}

// The same Application refreshed records its resourceVersion in the private
// state.
func TestRead_RecordsTheResourceVersion(t *testing.T) {
	h := newHarness(t)
	_, created := createWithSecret(t, h)
	if got := privateFromJSON(t, created.private).ResourceVersion; got == "" {
		t.Fatal("create recorded no resourceVersion")
	}
	h.dp.editApp("app", func(md, _ map[string]any) { md["resourceVersion"] = "99" })
	resp := h.read(created.state, created.private)
	if hasError(resp.Diagnostics) {
		t.Fatalf("read: %s", diagText(resp.Diagnostics))
	}
	if got := privateFromJSON(t, resp.Private).ResourceVersion; got != "99" {
		t.Fatalf("resourceVersion %q, want 99", got)
	}
}

// A state whose effective_settings no apply computed takes DP's record at a
// refresh only while the record is of the current generation: otherwise
// they are the effective settings of earlier settings, and stay null.
func TestRead_EffectiveSettingsFromDPsRecordOnlyOfTheCurrentGeneration(t *testing.T) {
	for _, tt := range []struct {
		name     string
		dpBehind bool
	}{{name: "DP applied the current generation"}, {name: "DP has not applied the current generation", dpBehind: true}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			created := h.planAndApply(nil, nil, demoConfig(map[string]any{"replicas": 2}))
			if created.apply == nil || hasError(created.apply.Diagnostics) {
				t.Fatalf("create: %s", diagText(created.plan.Diagnostics))
			}
			m := h.model(created.state)
			m.EffectiveSettings = types.StringNull()
			h.dp.editApp("app", func(md, _ map[string]any) {
				md["resourceVersion"] = "99"
				if tt.dpBehind {
					md["generation"] = dpfake.Int64(md["generation"]) + 1
				}
			})
			resp := h.read(encodeModel(t, m), created.private)
			if hasError(resp.Diagnostics) {
				t.Fatalf("read: %s", diagText(resp.Diagnostics))
			}
			got := h.model(resp.NewState)
			// DP's record is stored once: as effective_settings when it is
			// of the current generation (last_applied_settings null), else
			// as last_applied_settings.
			if want := !tt.dpBehind; !got.EffectiveSettings.IsNull() != want {
				t.Fatalf("effective_settings = %v, want DP's record: %v", got.EffectiveSettings, want)
			}
			if want := tt.dpBehind; !got.LastAppliedSettings.IsNull() != want {
				t.Fatalf("last_applied_settings = %v, want DP's record: %v", got.LastAppliedSettings, want)
			}
			record := got.LastAppliedSettings
			if !tt.dpBehind {
				record = got.EffectiveSettings
			}
			if v, _, _ := convert.FromJSONString(record); !jsonvalue.Equal(v, map[string]any{"replicas": 2}) {
				t.Fatalf("DP's record in the state = %v, want {replicas: 2}", record)
			}
		})
	}
}
