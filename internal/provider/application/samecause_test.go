package application

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

func TestAddReadError_OneErrorPerVerdictThenWarningsOfOneSummary(t *testing.T) {
	verdict := &dpclient.UnreachableError{Server: "https://api", Request: "GET applications", Waited: time.Minute, Err: context.DeadlineExceeded}
	steps := []struct {
		name        string
		err         error
		wantError   bool
		wantSummary string
	}{
		{"an error that is not the verdict is an error", errors.New("forbidden"), true, "Cannot read Application ns/a"},
		{"the first read the verdict fails is the run's error", &dpclient.NotSentError{Verdict: verdict}, true, "Cannot read Application ns/a"},
		{"every later one is a warning of the shared summary", &dpclient.NotSentError{Verdict: verdict}, false, sameCauseSummary},
		{"a read the verdict cut short too", &dpclient.CutShortError{Verdict: verdict}, false, sameCauseSummary},
	}
	for _, s := range steps {
		var diags diag.Diagnostics
		addReadError(&diags, "Cannot read Application ns/a", s.err.Error(), s.err, "It keeps its prior state in this run.")
		if len(diags) != 1 {
			t.Fatalf("%s: %d diagnostics, want 1", s.name, len(diags))
		}
		d := diags[0]
		if got := d.Severity() == diag.SeverityError; got != s.wantError || d.Summary() != s.wantSummary {
			t.Errorf("%s: error=%v summary %q, want error=%v summary %q", s.name, got, d.Summary(), s.wantError, s.wantSummary)
		}
		if s.wantError && errors.As(s.err, new(*dpclient.UnreachableError)) && !strings.Contains(d.Detail(), "Every later request") {
			t.Errorf("%s: the error does not give the verdict in full: %q", s.name, d.Detail())
		}
		if !s.wantError && (!strings.Contains(d.Detail(), "ns/a") || !strings.Contains(d.Detail(), "prior state")) {
			t.Errorf("%s: the warning does not name the Application and what it kept: %q", s.name, d.Detail())
		}
	}
}
