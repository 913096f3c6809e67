package application

import (
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// sameCauseSummary is the one summary of the diagnostics that follow the
// error reporting an API server that cannot be reached: the CLI shows
// warnings of one summary once ("and N more similar warnings"), where it
// would render a thousand copies of one error, each with its configuration
// snippet, for minutes.
const sameCauseSummary = "Not read: the API server cannot be reached (the error of this run says why)"

// requiredNote ends an error that plan_checks = "required" makes of a check
// the plan could not make; notCheckedKept ends the warning that replaces it
// once the run's error reports the cause.
const (
	requiredNote   = `plan_checks = "required" makes this an error.`
	notCheckedKept = "The settings were not checked; the run fails on the error."
)

// readFailure is a failed read from the cluster whose caller keeps its
// prior result (a refresh keeps the prior state, a plan defers its checks).
type readFailure struct {
	summary, detail string
	err             error
	errorNote       string // added to the error only ("plan_checks = ... makes this an error.")
	kept            string // added to the warning only: what the caller kept
}

// addReadError reports f: as an error, unless an error of this provider
// process already reports the same verdict on the API server
// (dpclient.ClaimReport), in which case it is a warning under
// sameCauseSummary that says what was kept. The run still fails, on that
// one error.
//
// The error that reports the verdict gives it in full (the server, the
// deadline, the first failure, what to check), even when this read was one
// the verdict held back.
func addReadError(diags *diag.Diagnostics, f readFailure) {
	if !dpclient.ClaimReport(f.err) {
		diags.AddWarning(sameCauseSummary, f.summary+": "+sentence(f.detail)+" "+f.kept)
		return
	}
	detail := f.detail
	var verdict *dpclient.UnreachableError
	if errors.As(f.err, &verdict) {
		detail = sentence(verdict.Error())
	}
	if f.errorNote != "" {
		detail = sentence(detail) + " " + f.errorNote
	}
	diags.AddError(f.summary, detail)
}

// sentence ends s with a period.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}
