package dpclient

import "github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/outage"

// The verdict of a Client on its API server is package outage; these are its
// names in this package's API.
type (
	// UnreachableError is the verdict on an API server that cannot be
	// reached (see outage.UnreachableError).
	UnreachableError = outage.UnreachableError
	// UnreachableKind is what tripped the verdict.
	UnreachableKind = outage.Kind
	// NotSentError is a request the verdict held back.
	NotSentError = outage.NotSentError
	// CutShortError is a request that was waiting for an answer when the
	// verdict came.
	CutShortError = outage.CutShortError
)

// What tripped the verdict.
const (
	KindNoAnswer      = outage.KindNoAnswer
	KindRefused       = outage.KindRefused
	KindMisconfigured = outage.KindMisconfigured
)

// ReportedBefore reports whether err comes from the verdict and an error
// diagnostic of this process already reports that verdict (see
// outage.ReportedBefore).
func ReportedBefore(err error) bool { return outage.ReportedBefore(err) }
