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

// addReadError reports err, a failed read from the cluster whose caller keeps
// its prior result (a refresh keeps the prior state, a plan defers its
// checks): as an error, unless an error of this provider process already
// reports the same verdict on the API server (dpclient.ReportedBefore), in
// which case it is a warning under sameCauseSummary that says what was kept.
// The run still fails, on that one error.
//
// The error that reports the verdict gives it in full (the server, the
// deadline, the first failure, what to check), even when this read was one
// the verdict held back.
func addReadError(diags *diag.Diagnostics, summary, detail string, err error, kept string) {
	if dpclient.ReportedBefore(err) {
		diags.AddWarning(sameCauseSummary, summary+": "+sentence(detail)+" "+kept)
		return
	}
	var verdict *dpclient.UnreachableError
	if errors.As(err, &verdict) {
		detail = sentence(verdict.Error())
	}
	diags.AddError(summary, detail)
}

// sentence ends s with a period.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}
