package application

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/providerdata"
)

// A strict plan of a new Application against an API server that does not
// answer fails with one error, through the shortcut as through the
// framework: the shortcut answers with ModifyPlan's diagnostics instead of
// running ModifyPlan again, whose second verdict would be only the warning
// that follows the run's one error.
func TestPlanShortcut_StrictCreatePlanAgainstASilentServerFailsOnce(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); silent.Close() })

	s := newServersOf(t, silent.URL, "", testProvider{planChecks: providerdata.PlanChecksRequired, requestTimeout: time.Second})
	cfg := encodeModel(t, configOf(appState()))
	null, err := tfprotov6.NewDynamicValue(stateType(), tftypes.NewValue(stateType(), nil))
	if err != nil {
		t.Fatal(err)
	}
	req := &tfprotov6.PlanResourceChangeRequest{TypeName: TypeName, PriorState: &null, ProposedNewState: cfg, Config: cfg}
	ctx := context.Background()
	for _, side := range []struct {
		name string
		srv  tfprotov6.ProviderServer
	}{{"shortcut", s.shortcut}, {"framework", s.framework}} {
		resp, err := side.srv.PlanResourceChange(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		errs := 0
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				errs++
			}
		}
		if errs != 1 {
			t.Errorf("%s: %d errors, want 1: %v", side.name, errs, diagSummaries(resp.Diagnostics))
		}
	}
	if !s.answered() {
		t.Error("the shortcut handed the plan to the framework")
	}
}

func diagSummaries(ds []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Severity.String()+": "+d.Summary)
	}
	return out
}
