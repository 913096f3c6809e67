package dpclient

import (
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/outage"

	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/dpfake"
)

// Every read held: the first reads share one deadline, the verdict ends the
// reads waiting with them, and later reads fail at once without a request.
func TestVerdict_HeldReadsCostOneDeadline(t *testing.T) {
	f := newFakeAPI(t)
	f.SetHook(dpfake.Hold)
	const deadline = 400 * time.Millisecond
	c := newClient(t, f, deadline)
	ctx := context.Background()
	started := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two namespaces, each Application read twice (a refresh and the
			// plan's read of one resource).
			_, errs[i] = c.GetApplication(ctx, fmt.Sprintf("ns%d", i%2), fmt.Sprintf("app%d", i%6))
		}()
	}
	wg.Wait()
	if d := time.Since(started); d > deadline+time.Second {
		t.Fatalf("12 held reads took %s with a %s deadline, want one deadline", d, deadline)
	}
	for _, err := range errs {
		var ue *UnreachableError
		if !errors.As(err, &ue) || ue.Kind != outage.KindNoAnswer {
			t.Fatalf("read: %v, want the verdict", err)
		}
		if c := Classify(err); c.Transient() || !c.Unavailable() || c == ClassMisconfigured || !c.Verdict() {
			t.Fatalf("verdict classified %v", c)
		}
	}
	msg := errs[0].Error()
	for _, want := range []string{f.URL, "did not answer", "400ms", "request_timeout", "Check that kube-apiserver"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("diagnostic %q lacks %q", msg, want)
		}
	}
	sent := f.Count("")
	started = time.Now()
	_, err := c.GetApplication(ctx, "ns3", "other")
	var ns *NotSentError
	if !errors.As(err, &ns) || time.Since(started) > 100*time.Millisecond {
		t.Fatalf("read after the verdict: %v after %s, want NotSentError at once", err, time.Since(started))
	}
	if _, err := c.PackageVersion(ctx, "apv"); !errors.As(err, &ns) {
		t.Fatalf("package version read after the verdict: %v, want NotSentError", err)
	}
	if n := f.Count(""); n != sent {
		t.Fatalf("%d requests sent after the verdict", n-sent)
	}
}

// A server that answers every read, slowly but within the deadline, never
// trips the verdict.
func TestVerdict_SlowButAnsweringServerNeverTrips(t *testing.T) {
	f := newFakeAPI(t)
	for i := range 6 {
		f.Put("ns", fmt.Sprintf("app%d", i), nil)
	}
	f.SetHook(func(http.ResponseWriter, *http.Request) bool { time.Sleep(150 * time.Millisecond); return false })
	c := newClient(t, f, 500*time.Millisecond)
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.GetApplication(context.Background(), "ns", fmt.Sprintf("app%d", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if v := c.Unreachable(); v != nil {
		t.Fatalf("verdict on a slow server: %v", v)
	}
}

// A wrong CA is a configuration error: not retried, not "unavailable", and
// it trips the verdict at once.
func TestVerdict_WrongCAIsAConfigurationError(t *testing.T) {
	f := newFakeAPI(t)
	cfg := f.Config()
	cfg.CAData = otherCA(t)
	c, err := New(cfg, Options{ReadTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetApplication(context.Background(), "ns", "app")
	var cfgErr *ConfigError
	if c := Classify(err); c != ClassMisconfigured || !errors.As(err, &cfgErr) || c.Transient() || c.Unavailable() {
		t.Fatalf("wrong CA: %v (class %v), want a configuration error", err, c)
	}
	if !strings.Contains(err.Error(), "configuration error") || !strings.Contains(err.Error(), "cluster_ca_certificate") {
		t.Fatalf("diagnostic %q does not name the configuration", err)
	}
	if Classify(err).Sent() {
		t.Fatal("a failed TLS handshake counts as sent")
	}
}

// Refused connections are a restarting server for refusedWindow; then they
// are the verdict.
func TestVerdict_RefusedConnectionsTripAfterTheWindow(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	c, err := New(&rest.Config{Host: "https://" + addr, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, Options{ReadTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c.outage.SetRefusedWindow(300 * time.Millisecond)
	_, err = c.GetApplication(context.Background(), "ns", "a")
	if c.Unreachable() != nil || !Classify(err).Transient() || Classify(err).Sent() {
		t.Fatalf("first refusal: %v (verdict %v), want a transient error that was never sent", err, c.Unreachable())
	}
	time.Sleep(350 * time.Millisecond)
	_, err = c.GetApplication(context.Background(), "other", "b")
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Kind != outage.KindRefused || ue.Sent() {
		t.Fatalf("refusal after the window: %v, want the verdict", err)
	}
}

// A failed namespace LIST is remembered as long as a good one: the reads
// waiting on it and those after it get its error, with no fallback GET.
func TestApplicationReads_AFailedListIsRememberedWithoutFallback(t *testing.T) {
	f := newFakeAPI(t)
	f.Put("ns", "a", nil)
	c := newClient(t, f, time.Second)
	ctx := context.Background()
	if _, err := c.GetApplication(ctx, "ns", "a"); err != nil {
		t.Fatal(err)
	}
	f.SetHook(func(w http.ResponseWriter, _ *http.Request) bool {
		dpfake.Status(w, http.StatusInternalServerError, "InternalError", "etcd is down")
		return true
	})
	sent := f.Count("")
	for _, name := range []string{"a", "b", "c"} {
		if _, err := c.GetApplication(ctx, "ns", name); err == nil || !apierrors.IsInternalError(errors.Unwrap(err)) {
			t.Fatalf("read %s: %v, want the LIST's 500", name, err)
		}
	}
	if n := f.Count(""); n != sent+1 {
		t.Fatalf("%d requests for three reads after a failed LIST, want the one LIST", n-sent)
	}
}

// Classification of errors, as client-go's retries judge them.
func TestClassify_JudgesErrorsAsClientGosRetries(t *testing.T) {
	status := func(code int) error { return apierrors.FromObject(statusObject(code)) }
	dns := &net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}
	verdict := &UnreachableError{Err: context.DeadlineExceeded}
	tests := []struct {
		name                    string
		err                     error
		class                   Class
		transient, landed, sent bool
	}{
		{"429", status(429), ClassRetryLater, true, false, true},
		{"500", status(500), ClassServerError, true, true, true},
		{"502", status(502), ClassServerError, true, true, true},
		{"503", status(503), ClassServerError, true, true, true},
		{"504 may still complete", status(504), ClassServerError, true, true, true},
		{"401", status(401), ClassUnauthorized, true, false, true},
		{"422", status(422), ClassRejected, false, false, true},
		{"reset", fmt.Errorf("read tcp: %w", errors.New("connection reset by peer")), ClassNoAnswer, true, true, true},
		{"EOF", fmt.Errorf("Get x: %w", io.ErrUnexpectedEOF), ClassNoAnswer, true, true, true},
		{"refused", fmt.Errorf("dial tcp: %w", errors.New("connect: connection refused")), ClassConnectionRefused, true, false, false},
		{"dns not found", fmt.Errorf("dial tcp: %w", dns), ClassMisconfigured, false, false, false},
		{"x509", errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), ClassMisconfigured, false, false, false},
		{"rate limiter", errors.New("client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline"), ClassRateLimited, false, false, false},
		{"held back by the verdict", &NotSentError{Verdict: verdict}, ClassUnreachable, false, false, false},
		{"cut short by the verdict", &CutShortError{Verdict: verdict}, ClassUnreachableSent, false, true, true},
		{"the request that tripped the verdict", fmt.Errorf("reading: %w", verdict), ClassUnreachableSent, false, true, true},
		{"anything else", errors.New("encoding the body"), ClassOther, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Classify(tt.err)
			if c != tt.class {
				t.Errorf("Classify = %v, want %v", c, tt.class)
			}
			if got := c.Transient(); got != tt.transient {
				t.Errorf("Transient = %v, want %v", got, tt.transient)
			}
			if got := c.MayHaveLanded(); got != tt.landed {
				t.Errorf("MayHaveLanded = %v, want %v", got, tt.landed)
			}
			if got := c.Sent(); got != tt.sent {
				t.Errorf("Sent = %v, want %v", got, tt.sent)
			}
		})
	}
	var r retries
	if !r.again(status(401)) || r.again(status(401)) {
		t.Fatal("401 is retried once, not more")
	}
}

func statusObject(code int) *metav1.Status {
	return &metav1.Status{Status: metav1.StatusFailure, Code: int32(code), Reason: metav1.StatusReason(http.StatusText(code)), Message: "m"}
}

// otherCA is the PEM of a CA that signed nothing the test servers hold.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// A read that ran out of time in client-go's rate limiter after a failed
// attempt is judged by that attempt: a reset connection is an unavailable
// server, a refusal is not.
func TestClassify_RateLimitedReadJudgedByItsPreviousAttempt(t *testing.T) {
	t.Parallel()
	const limiter = "client rate limiter Wait returned an error: context deadline exceeded"
	for _, tc := range []struct {
		err  string
		want bool
	}{
		{limiter + " - error from a previous attempt: read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer", true},
		{limiter + " - error from a previous attempt: EOF", true},
		{limiter, false},
	} {
		if got := Classify(errors.New(tc.err)).Unavailable(); got != tc.want {
			t.Errorf("Unavailable(%q) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestClaimReport_OnlyTheFirstReportOfAVerdictClaimsIt(t *testing.T) {
	verdict := &UnreachableError{Server: "https://api", Request: "GET applications", Waited: time.Second, Err: context.DeadlineExceeded}
	other := &UnreachableError{Server: "https://other", Request: "GET applications", Waited: time.Second, Err: context.DeadlineExceeded}
	steps := []struct {
		name string
		err  error
		want bool
	}{
		{"an error that is not the verdict is always its own report", errors.New("forbidden"), true},
		{"no error is its own report", nil, true},
		{"the first report of the verdict claims it", &NotSentError{Verdict: verdict}, true},
		{"a later request not sent shares that report", &NotSentError{Verdict: verdict}, false},
		{"a request the verdict cut short shares it", &CutShortError{Verdict: verdict}, false},
		{"the verdict itself, wrapped, shares it", fmt.Errorf("reading: %w", verdict), false},
		{"another client's verdict is its own first report", other, true},
		{"an error that is not the verdict stays an error after it", errors.New("forbidden"), true},
	}
	for _, s := range steps {
		if got := ClaimReport(s.err); got != s.want {
			t.Errorf("%s: ClaimReport = %v, want %v", s.name, got, s.want)
		}
	}
}

// The names of the classes, for the messages of the tests.
var classNames = [...]string{"none", "rejected", "unauthorized", "retry later", "server error", "no answer", "connection refused",
	"rate limited", "rate limited after a fault", "misconfigured", "unreachable", "unreachable (sent)", "other"}

func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return "unknown"
	}
	return classNames[c]
}

// Sent reports whether the request may have reached the API server: false
// when the verdict held it back, the connection was refused, the name did
// not resolve, the TLS handshake failed or the rate limiter refused it.
func (c Class) Sent() bool {
	switch c {
	case ClassNone, ClassConnectionRefused, ClassRateLimited, ClassRateLimitedAfterFault, ClassMisconfigured, ClassUnreachable:
		return false
	}
	return true
}

// Unreachable returns the client's verdict on the API server: nil while it
// answers (or has not been asked yet).
func (c *Client) Unreachable() *UnreachableError { return c.outage.Get() }
