package dpclient

import (
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/outage"
)

// Class is what a failed request says about the API server and about the
// request: whether it was sent, whether it may have been processed, and
// whether trying again may help. Classify gives it; its methods answer the
// questions of the retries, the waits and the diagnostics.
type Class int

const (
	// ClassNone: no error.
	ClassNone Class = iota
	// ClassRejected: the server answered and refused the request (a 4xx
	// other than 401 and 429): trying again does not help.
	ClassRejected
	// ClassUnauthorized: 401. Retried once: an exec credential plugin or a
	// token file may have renewed the credentials.
	ClassUnauthorized
	// ClassRetryLater: the server answered that it did not process the
	// request and may later (429, or a 5xx other than 500, 502, 503, 504).
	ClassRetryLater
	// ClassServerError: 500, 502, 503 or 504, which may still complete
	// (kube-apiserver's own 504 says so): the request may have landed.
	ClassServerError
	// ClassNoAnswer: the request was sent and no answer came, or it was
	// cut (a timeout, a reset, EOF, a broken pipe, a lost HTTP/2
	// connection): it may have landed.
	ClassNoAnswer
	// ClassConnectionRefused: the connection was refused (a restarting API
	// server; the client's verdict ends those after outage.RefusedWindow): never
	// sent.
	ClassConnectionRefused
	// ClassRateLimited: client-go's rate limiter refused to wait past the
	// context's deadline: never sent, and the operation is out of time.
	ClassRateLimited
	// ClassRateLimitedAfterFault: the same, after an attempt that got no
	// answer or a transient one: that attempt says the server was not
	// answering.
	ClassRateLimitedAfterFault
	// ClassMisconfigured: the connection's configuration cannot reach the
	// server (a host name that does not resolve, a certificate that does not
	// verify), directly or as the client's verdict: never sent, and trying
	// again cannot help.
	ClassMisconfigured
	// ClassUnreachable: the client's verdict on an API server that does not
	// answer, and this request was not sent (the verdict held it back, or
	// connections were refused past the window).
	ClassUnreachable
	// ClassUnreachableSent: the client's verdict, and this request was sent
	// (it ran out its deadline with no answer, or the verdict cut it short):
	// it may have landed.
	ClassUnreachableSent
	// ClassOther: any other error. Not retried; a write that failed so may
	// have been sent.
	ClassOther
)

// Transient reports whether the error may go away by itself, as client-go's
// own retries judge it: throttling, server errors, timeouts, cut and
// refused connections, and 401 (which the retry loops retry once). Never
// transient: the client's verdict on the API server, a configuration error,
// the rate limiter at the deadline, a refusal.
func (c Class) Transient() bool {
	switch c {
	case ClassUnauthorized, ClassRetryLater, ClassServerError, ClassNoAnswer, ClassConnectionRefused:
		return true
	}
	return false
}

// Unavailable reports whether a read failed because the API server could
// not be reached or answered with a server error, as opposed to a refusal
// (RBAC, credentials), a request the server rejects or a configuration
// error.
func (c Class) Unavailable() bool {
	switch c {
	case ClassRetryLater, ClassServerError, ClassNoAnswer, ClassConnectionRefused, ClassRateLimitedAfterFault,
		ClassUnreachable, ClassUnreachableSent:
		return true
	}
	return false
}

// MayHaveLanded reports whether a failed write may have been processed by
// the API server: it was sent and no answer came, or the answer was 500,
// 502, 503 or 504. A write that was never sent, and one the server refused
// with an answer (429 included), was not processed.
func (c Class) MayHaveLanded() bool {
	switch c {
	case ClassServerError, ClassNoAnswer, ClassUnreachableSent, ClassOther:
		return true
	}
	return false
}

// RateLimited reports whether client-go's rate limiter refused to wait past
// the deadline: the operation is out of time (a timeout, not a fault of the
// server).
func (c Class) RateLimited() bool { return c == ClassRateLimited || c == ClassRateLimitedAfterFault }

// Verdict reports whether the error is (or shares) the client's verdict on
// an API server that does not answer; a misconfiguration is
// ClassMisconfigured even when it is the verdict.
func (c Class) Verdict() bool { return c == ClassUnreachable || c == ClassUnreachableSent }

// Classify says what a failed request of this package (or of client-go
// under it) tells of the server and of the request.
func Classify(err error) Class {
	if err == nil {
		return ClassNone
	}
	var (
		cs     *CutShortError
		ns     *NotSentError
		ue     *UnreachableError
		status apierrors.APIStatus
	)
	switch {
	case errors.As(err, &cs):
		return verdictClass(cs.Verdict, true)
	case errors.As(err, &ns):
		return verdictClass(ns.Verdict, false)
	case errors.As(err, &ue):
		return verdictClass(ue, ue.Sent())
	case outage.Misconfigured(err):
		return ClassMisconfigured
	case rateLimited(err):
		// The read ran out of time waiting for the rate limiter after a
		// failed attempt: that attempt says whether the server answered.
		_, previous, ok := strings.Cut(err.Error(), "error from a previous attempt: ")
		if ok && (strings.HasSuffix(previous, "EOF") || Classify(errors.New(previous)).Transient()) {
			return ClassRateLimitedAfterFault
		}
		return ClassRateLimited
	case errors.As(err, &status):
		return statusClass(int(status.Status().Code))
	case utilnet.IsConnectionRefused(err) || outage.Refused(err):
		return ClassConnectionRefused
	case noAnswer(err):
		return ClassNoAnswer
	}
	return ClassOther
}

// verdictClass is the class of a request the verdict v ended.
func verdictClass(v *UnreachableError, sent bool) Class {
	switch {
	case v.Kind == outage.KindMisconfigured:
		return ClassMisconfigured
	case sent:
		return ClassUnreachableSent
	}
	return ClassUnreachable
}

func statusClass(code int) Class {
	switch {
	case code == http.StatusUnauthorized:
		return ClassUnauthorized
	case code == http.StatusInternalServerError, code == http.StatusBadGateway, code == http.StatusServiceUnavailable,
		code == http.StatusGatewayTimeout:
		return ClassServerError
	case code >= 500 || code == http.StatusTooManyRequests:
		return ClassRetryLater
	}
	return ClassRejected
}

// noAnswer reports whether a transport error is a request sent without an
// answer, or whose answer was cut.
func noAnswer(err error) bool {
	if utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) || errors.Is(err, io.ErrUnexpectedEOF) || utilnet.IsHTTP2ConnectionLost(err) ||
		errors.Is(err, syscall.EPIPE) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	s := err.Error()
	return slices.ContainsFunc([]string{"connection reset", "broken pipe", "http2: ", "stream error", "TLS handshake timeout"},
		func(m string) bool { return strings.Contains(s, m) })
}

// rateLimited reports whether err is client-go's rate limiter refusing to
// wait past the context's deadline.
func rateLimited(err error) bool {
	return strings.Contains(err.Error(), "client rate limiter Wait returned an error")
}
