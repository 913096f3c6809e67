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
		addReadError(&diags, readFailure{summary: "Cannot read Application ns/a", detail: s.err.Error(), err: s.err, kept: "It keeps its prior state in this run."})
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

func TestAddReadError_TheRequiredNoteGoesOnTheErrorOnly(t *testing.T) {
	verdict := &dpclient.UnreachableError{Server: "https://api", Request: "GET applications", Waited: time.Minute, Err: context.DeadlineExceeded}
	f := readFailure{summary: "Settings not checked at plan: cluster unavailable", detail: "Cannot read the package version.",
		errorNote: requiredNote, kept: notCheckedKept}
	var diags diag.Diagnostics
	f.err = errors.New("forbidden")
	addReadError(&diags, f)
	f.err = &dpclient.NotSentError{Verdict: verdict}
	addReadError(&diags, f) // the run's error: the verdict in full, and the note
	addReadError(&diags, f) // the same cause again: a warning without the note
	if len(diags) != 3 || diags[0].Severity() != diag.SeverityError || diags[1].Severity() != diag.SeverityError || diags[2].Severity() != diag.SeverityWarning {
		t.Fatalf("diagnostics: %v", diags)
	}
	for i, d := range diags[:2] {
		if !strings.HasSuffix(d.Detail(), requiredNote) {
			t.Errorf("error %d does not end with the note: %q", i, d.Detail())
		}
	}
	if strings.Contains(diags[2].Detail(), "makes this an error") || !strings.Contains(diags[2].Detail(), notCheckedKept) {
		t.Errorf("warning: %q", diags[2].Detail())
	}
}
