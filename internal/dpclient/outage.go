package dpclient

import "github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/outage"

// The verdict of a Client on its API server is package outage; these are its
// names in this package's API.
type (
	// UnreachableError is the verdict on an API server that cannot be
	// reached (see outage.UnreachableError).
	UnreachableError = outage.UnreachableError
	// NotSentError is a request the verdict held back.
	NotSentError = outage.NotSentError
	// CutShortError is a request that was waiting for an answer when the
	// verdict came.
	CutShortError = outage.CutShortError
)

// ClaimReport claims the run's one error report of the verdict err comes
// from, and reports whether this caller got it (see outage.ClaimReport).
func ClaimReport(err error) bool { return outage.ClaimReport(err) }
