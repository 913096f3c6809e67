package outage

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// RefusedWindow is how long refused connections are taken for an API server
// that is restarting: a refusal that goes on longer is the verdict.
const RefusedWindow = 30 * time.Second

// UnreachableError is the verdict of a Client on an API server that cannot
// be reached: one of its requests ended at its deadline with no answer at
// all, connections were refused for longer than a restart takes, or the
// configuration cannot reach it (its name does not resolve, its certificate
// does not verify). It is remembered for the rest of the process: every
// later request fails at once with a *NotSentError holding it, and requests
// waiting for an answer end with it.
type UnreachableError struct {
	Server  string        // the API server's URL
	Request string        // the first failed request, "GET applications" (never a name or a query)
	Waited  time.Duration // how long that request waited (its deadline) before failing
	Kind    Kind
	Err     error // the first failure

	config   error       // with KindMisconfigured: Err as the client's configuration error
	reported atomic.Bool // an error diagnostic of this process reports it
}

// Kind is what tripped the verdict.
type Kind int

const (
	// KindNoAnswer: a request ended at its deadline with no response (the
	// request was sent: a write may have landed).
	KindNoAnswer Kind = iota
	// KindRefused: every connection was refused for RefusedWindow.
	KindRefused
	// KindMisconfigured: the host name does not resolve or the server's
	// certificate does not verify; nothing was sent.
	KindMisconfigured
)

func (e *UnreachableError) Error() string {
	var b strings.Builder
	switch e.Kind {
	case KindNoAnswer:
		fmt.Fprintf(&b, "the API server %s did not answer: the first request (%s) got no response within its deadline of %s (request_timeout bounds each request): %v",
			e.Server, e.Request, e.Waited, e.Err)
	case KindRefused:
		fmt.Fprintf(&b, "the API server %s refused connections for %s: %v", e.Server, RefusedWindow, e.Err)
	case KindMisconfigured:
		fmt.Fprintf(&b, "the API server %s cannot be reached with this configuration (a configuration error, not an outage): %v", e.Server, e.Err)
	}
	b.WriteString(". Every later request of this provider run fails at once with this error, without being sent. ")
	if e.Kind == KindMisconfigured {
		b.WriteString("Check the host and its certificate authority (cluster_ca_certificate, or certificate-authority-data of the kubeconfig), " +
			"the host name the certificate was issued for, and that the name resolves from here")
	} else {
		b.WriteString("Check that kube-apiserver and etcd behind it are running and answering, and that this machine reaches " + e.Server +
			" (network, firewall, proxy, VPN)")
	}
	return b.String()
}

// short names the verdict in one sentence.
func (e *UnreachableError) short() string {
	switch e.Kind {
	case KindRefused:
		return fmt.Sprintf("the API server %s refused connections for %s", e.Server, RefusedWindow)
	case KindMisconfigured:
		return fmt.Sprintf("the API server %s cannot be reached with this configuration (a configuration error): %v", e.Server, e.Err)
	}
	return fmt.Sprintf("the API server %s did not answer (the first request of this run, %s, got no response within %s, request_timeout)",
		e.Server, e.Request, e.Waited)
}

// Unwrap returns the first failure; a misconfiguration also unwraps to the
// client's configuration error (see New).
func (e *UnreachableError) Unwrap() []error {
	if e.Kind == KindMisconfigured && e.config != nil {
		return []error{e.Err, e.config}
	}
	return []error{e.Err}
}

// Sent reports whether the request that tripped the verdict reached the
// server (it was sent and no answer came): only then may a write have landed.
func (e *UnreachableError) Sent() bool { return e.Kind == KindNoAnswer }

// ClaimReport claims the run's one error report of the verdict err comes
// from, and reports whether this caller got it: the first caller for a
// verdict gets true and reports the error, and the callers after it get
// false and may say "same cause" in a warning instead of an error of their
// own. An error that is not the verdict (or nil) is always its own report:
// true. A CLI renders every error with its configuration
// snippet (parsing the file again each time), so a thousand copies of one
// cause cost minutes, while warnings of one summary are shown once. Only a
// caller that keeps its prior result (a refresh, a check at plan) may ask:
// a failed write is always an error.
func ClaimReport(err error) bool {
	var ue *UnreachableError
	if err == nil || !errors.As(err, &ue) {
		return true
	}
	return ue.reported.CompareAndSwap(false, true)
}

// NotSentError is a request the Client did not send because of its verdict
// on the API server.
type NotSentError struct{ Verdict *UnreachableError }

// Error is short: every request after the verdict says the same, and the
// first failure was reported in full by the requests it ended.
func (e *NotSentError) Error() string {
	if e.Verdict.Kind == KindMisconfigured {
		return "not sent: " + e.Verdict.short() + ". Check the host and its certificate authority (cluster_ca_certificate, or the kubeconfig's)"
	}
	return "not sent: " + e.Verdict.short() + ". Check that kube-apiserver and etcd are running and answering, and that this machine reaches " +
		e.Verdict.Server
}
func (e *NotSentError) Unwrap() error { return e.Verdict }

// CutShortError is a request that was waiting for an answer when the
// verdict came: it shares the verdict instead of waiting out its own
// deadline. It was sent: a write may have landed.
type CutShortError struct{ Verdict *UnreachableError }

func (e *CutShortError) Error() string { return e.Verdict.Error() }
func (e *CutShortError) Unwrap() error { return e.Verdict }

// ShareVerdict turns the end of a caller's wait for a shared read into the
// verdict that ended the read, when there is one: every read waiting on a
// server that did not answer gets the same diagnostic.
func (o *Judge) ShareVerdict(err error) error {
	var (
		ns *NotSentError
		cs *CutShortError
		ue *UnreachableError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ns): // without the request's URL around it
		return ns
	case errors.As(err, &cs):
		return cs
	case errors.As(err, &ue):
		return ue
	case !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled):
		return err
	}
	if v := o.Get(); v != nil {
		return &CutShortError{Verdict: v}
	}
	return err
}

// Misconfigured reports whether a transport error is a configuration error
// of the connection (a host name that does not resolve, a certificate that
// does not verify): retrying cannot help.
func Misconfigured(err error) bool {
	var (
		dnsErr   *net.DNSError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &dnsErr):
		return dnsErr.IsNotFound
	case errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify), errors.As(err, &record):
		return true
	}
	s := err.Error()
	return strings.Contains(s, "x509: ") || strings.Contains(s, "tls: failed to verify") || strings.Contains(s, "no such host")
}

// Refused reports whether a transport error is a refused connection.
func Refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

// NotSentNow is a remembered failure handed to a later read: when it is the
// verdict, that read was not sent, and says so in the short form.
func NotSentNow(err error) error {
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return &NotSentError{Verdict: ue}
	}
	return err
}

// Judge holds the verdict of one client, shared by all its requests.
type Judge struct {
	server  string
	minWait time.Duration // a request that waited less for its deadline does not trip the verdict
	window  time.Duration // RefusedWindow
	config  func(error) error

	mu           sync.Mutex
	verdict      *UnreachableError
	refusedSince time.Time
	tripped      context.Context // canceled when the verdict comes
	trip         context.CancelFunc
}

// New is the judge of a client of the API server at server whose requests
// each wait at most readTimeout. config, when not nil, turns a transport
// error of the configuration into the client's own configuration error,
// which the verdict then also unwraps to.
func New(server string, readTimeout time.Duration, config func(error) error) *Judge {
	o := &Judge{server: server, minWait: min(time.Second, readTimeout/2), window: RefusedWindow, config: config}
	o.tripped, o.trip = context.WithCancel(context.Background())
	return o
}

// Get returns the verdict on the API server, nil while it answers.
func (o *Judge) Get() *UnreachableError {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.verdict
}

// answered notes an answer of the server.
func (o *Judge) answered() {
	o.mu.Lock()
	o.refusedSince = time.Time{}
	o.mu.Unlock()
}

// failed judges a request that got no response; it returns the verdict when
// this failure tripped it.
func (o *Judge) failed(req *http.Request, waited time.Duration, err error) *UnreachableError {
	kind, trips := o.judge(req, waited, err)
	if !trips {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.verdict != nil {
		return o.verdict
	}
	o.verdict = &UnreachableError{Server: o.server, Request: describeRequest(req), Waited: waited, Kind: kind, Err: StripURL(err)}
	if kind == KindMisconfigured && o.config != nil {
		o.verdict.config = o.config(o.verdict.Err)
	}
	o.trip()
	return o.verdict
}

func (o *Judge) judge(req *http.Request, waited time.Duration, err error) (Kind, bool) {
	var netErr net.Error
	switch {
	case Misconfigured(err):
		return KindMisconfigured, true
	case Refused(err):
		o.mu.Lock()
		defer o.mu.Unlock()
		now := time.Now()
		if o.refusedSince.IsZero() {
			o.refusedSince = now
		}
		return KindRefused, now.Sub(o.refusedSince) >= o.window
	case errors.Is(err, context.DeadlineExceeded) && errors.Is(req.Context().Err(), context.DeadlineExceeded):
		// The request ran out its deadline without a response.
		return KindNoAnswer, waited >= o.minWait
	case errors.As(err, &netErr) && netErr.Timeout() && req.Context().Err() == nil:
		// A dial or TLS handshake timeout of the transport.
		return KindNoAnswer, true
	}
	return 0, false
}

// StripURL strips the *url.Error of the transport (its URL may name an
// object) from err.
func StripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// describeRequest names a request by its method and resource, never by an
// object's name (which may come from settings) or its query.
func describeRequest(req *http.Request) string {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	// /api/v1/..., /apis/group/version/...
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return req.Method + " " + "discovery"
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return req.Method + " discovery"
	}
	verb := req.Method
	if verb == http.MethodGet && req.URL.Query().Get("watch") == "true" {
		verb = "WATCH"
	}
	return verb + " " + parts[0]
}

// Guard wraps the transport of a client: it holds back every request once
// the verdict came, ends the requests waiting for an answer when it comes,
// and judges each request that got no response.
func (o *Judge) Guard(next http.RoundTripper) http.RoundTripper { return &guard{next: next, outage: o} }

// SetRefusedWindow changes how long refused connections are taken for a
// restart (RefusedWindow), for tests.
func (o *Judge) SetRefusedWindow(d time.Duration) {
	o.mu.Lock()
	o.window = d
	o.mu.Unlock()
}

// guard is the transport Guard returns.
type guard struct {
	next   http.RoundTripper
	outage *Judge
}

var errVerdict = errors.New("the API server verdict came")

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if v := g.outage.Get(); v != nil {
		return nil, &NotSentError{Verdict: v}
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	stop := context.AfterFunc(g.outage.tripped, func() { cancel(errVerdict) })
	started := time.Now()
	resp, err := g.next.RoundTrip(req.WithContext(ctx))
	stop()
	if err == nil {
		g.outage.answered()
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	}
	defer cancel(nil)
	if errors.Is(err, errVerdict) || errors.Is(context.Cause(ctx), errVerdict) {
		return nil, &CutShortError{Verdict: g.outage.Get()}
	}
	waited := time.Since(started)
	if dl, ok := req.Context().Deadline(); ok && errors.Is(err, context.DeadlineExceeded) {
		waited = roundDeadline(dl.Sub(started))
	}
	if v := g.outage.failed(req, waited, err); v != nil {
		return nil, v
	}
	return nil, err
}

// WrappedRoundTripper lets client-go's debugging helpers see through the
// guard.
func (g *guard) WrappedRoundTripper() http.RoundTripper { return g.next }

// cancelOnClose ends a response's request context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel(nil)
	return err
}

// roundDeadline rounds a deadline measured from a request's start to what
// the configuration said.
func roundDeadline(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
