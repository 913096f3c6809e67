package faultproxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Upstream is the kube-apiserver the proxy forwards to and the credentials
// it forwards with. The fields mirror client-go's rest.Config, so a test
// fills them from the control plane's admin config: Host, CAData, CertData,
// KeyData.
type Upstream struct {
	// URL is the server's base URL ("https://127.0.0.1:6443").
	URL string
	// CAData is the PEM of the CA that signed the server's certificate;
	// empty: the system roots.
	CAData []byte
	// CertData and KeyData are the PEM client certificate and key the proxy
	// presents to the server.
	CertData, KeyData []byte
}

// Config configures Start.
type Config struct {
	Upstream Upstream
	// Logf receives a line per request and per proxy error; nil: silent.
	Logf func(format string, args ...any)
}

// Request is one request the proxy saw, as its request log keeps it.
type Request struct {
	Time        time.Time
	Method      string
	Path        string
	Query       string
	RequestInfo        // verb, resource, namespace, name
	Rule        string // the rule that acted on it; "" when none did
	Action      string // what that rule did
	Outcome     string // an Outcome constant
	Code        int    // the status the client got; 0 when it got none
}

// Outcomes of a request in the request log.
const (
	OutcomePending      = "pending" // still being forwarded (a watch, a delay)
	OutcomeForwarded    = "forwarded"
	OutcomeAnswered     = "answered by the proxy"
	OutcomeReset        = "connection reset"
	OutcomeUnreachable  = "upstream unreachable"
	OutcomeUnauthorized = "unauthorized"
	OutcomeClientGone   = "client gone"
)

// Key groups the request counters.
type Key struct {
	Method   string
	Verb     string
	Resource string
}

// maxLog bounds the request log; the counters go on counting past it.
const maxLog = 100_000

// Proxy is a running fault-injecting proxy. Its methods are safe for
// concurrent use.
type Proxy struct {
	cfg       Config
	target    *url.URL
	token     string
	caPEM     []byte
	ln        net.Listener
	srv       *http.Server
	rp        *httputil.ReverseProxy
	transport *http.Transport
	inflight  sync.WaitGroup // guarded by mu together with closed
	closed    bool
	closeOnce sync.Once

	mu     sync.Mutex
	rules  []*Handle
	added  int
	counts map[Key]int
	log    []Request
	logGen int

	upMu      sync.Mutex
	upStopped bool
	upCtx     context.Context
	upCancel  context.CancelFunc
}

var (
	errResetAfter      = errors.New("faultproxy: reset after forwarding")
	errUpstreamStopped = errors.New("faultproxy: upstream stopped")
)

// Start listens on a free port of 127.0.0.1 with TLS (a self-signed
// certificate made for this proxy, see CAPEM) and HTTP/1.1 only, and serves
// until Close.
func Start(cfg Config) (*Proxy, error) {
	target, err := url.Parse(cfg.Upstream.URL)
	if err != nil || target.Host == "" || (target.Scheme != "https" && target.Scheme != "http") {
		return nil, fmt.Errorf("faultproxy: upstream URL %q: want http(s)://host:port", cfg.Upstream.URL)
	}
	upTLS, err := upstreamTLS(cfg.Upstream)
	if err != nil {
		return nil, err
	}
	cert, caPEM, _, err := selfSigned("faultproxy", x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: certificate: %w", err)
	}
	token := rand.Text()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}

	p := &Proxy{cfg: cfg, target: target, token: token, caPEM: caPEM, ln: ln, counts: map[Key]int{}}
	p.upCtx, p.upCancel = context.WithCancel(context.Background())
	p.transport = &http.Transport{
		DialContext:         p.dialUpstream,
		TLSClientConfig:     upTLS,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
		// HTTP/1.1 upstream too: one connection per request in flight, so
		// a stopped upstream or a restart fails requests one by one.
		ForceAttemptHTTP2: false,
	}
	errLog := log.New(io.Discard, "", 0)
	if cfg.Logf != nil {
		errLog = log.New(logfWriter(cfg.Logf), "faultproxy: ", 0)
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      p.transport,
		FlushInterval:  -1, // flush every write: watch events reach the client one by one
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       errLog,
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          errLog,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert},
			NextProtos:   []string{"http/1.1"},
			MinVersion:   tls.VersionTLS12,
		},
		// No HTTP/2: a reset must be the reset of one request's connection,
		// and only HTTP/1.1 connections can be hijacked.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	go func() { _ = p.srv.ServeTLS(ln, "", "") }()
	return p, nil
}

func upstreamTLS(u Upstream) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(u.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(u.CAData) {
			return nil, errors.New("faultproxy: upstream CAData holds no PEM certificate")
		}
		c.RootCAs = pool
	}
	if len(u.CertData) > 0 || len(u.KeyData) > 0 {
		cert, err := tls.X509KeyPair(u.CertData, u.KeyData)
		if err != nil {
			return nil, fmt.Errorf("faultproxy: upstream client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// URL is the proxy's base URL, https://127.0.0.1:<port>.
func (p *Proxy) URL() string { return "https://" + p.ln.Addr().String() }

// CAPEM is the PEM of the proxy's self-signed certificate, the CA a client
// trusts to reach it (cluster_ca_certificate, certificate-authority-data).
func (p *Proxy) CAPEM() []byte { return append([]byte(nil), p.caPEM...) }

// Token is the bearer token clients must send.
func (p *Proxy) Token() string { return p.token }

// Close stops the proxy: it stops listening, cuts every connection and
// forwarded request, and waits (up to 10 s) for the requests in flight to
// end.
func (p *Proxy) Close() error {
	var err error
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.StopUpstream()
		err = p.srv.Close()
		done := make(chan struct{})
		go func() { p.inflight.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		p.transport.CloseIdleConnections()
	})
	return err
}

// StopUpstream makes the upstream unreachable, as a stopped kube-apiserver
// is: every request in flight to it is cut (a client already receiving an
// answer, a watch, sees its connection closed mid-stream), and every request
// that would be forwarded has its connection reset until
// StartUpstream. Rules still act first: a Status rule answers as before.
func (p *Proxy) StopUpstream() {
	p.upMu.Lock()
	defer p.upMu.Unlock()
	if p.upStopped {
		return
	}
	p.upStopped = true
	p.upCancel()
	p.transport.CloseIdleConnections()
}

// StartUpstream makes the upstream reachable again after StopUpstream.
func (p *Proxy) StartUpstream() {
	p.upMu.Lock()
	defer p.upMu.Unlock()
	if !p.upStopped {
		return
	}
	p.upStopped = false
	p.upCtx, p.upCancel = context.WithCancel(context.Background())
}

func (p *Proxy) upstream() (context.Context, bool) {
	p.upMu.Lock()
	defer p.upMu.Unlock()
	return p.upCtx, p.upStopped
}

func (p *Proxy) dialUpstream(ctx context.Context, network, addr string) (net.Conn, error) {
	if _, stopped := p.upstream(); stopped {
		return nil, errUpstreamStopped
	}
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return d.DialContext(ctx, network, addr)
}

// Add adds a rule after the existing ones and returns its handle.
func (p *Proxy) Add(r Rule) *Handle {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.added++
	if r.Name == "" {
		r.Name = fmt.Sprintf("rule %d", p.added)
	}
	h := &Handle{p: p, rule: r, enabled: true, left: r.Times}
	p.rules = append(p.rules, h)
	return h
}

// ClearRules removes every rule.
func (p *Proxy) ClearRules() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = nil
}

// Count is the number of requests seen with the given verb and resource
// ("" matches any), including those a rule answered or reset and those
// refused for a wrong token.
func (p *Proxy) Count(verb, resource string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for k, c := range p.counts {
		if (verb == "" || k.Verb == verb) && (resource == "" || k.Resource == resource) {
			n += c
		}
	}
	return n
}

// Counts returns the request counters by method, verb and resource.
func (p *Proxy) Counts() map[Key]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.counts)
}

// Requests returns the request log in arrival order (the first 100 000
// requests since the start or the last ResetCounts).
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// ResetCounts empties the counters and the request log and sets every rule's
// Hits to 0. Budgets are left as they are.
func (p *Proxy) ResetCounts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.counts)
	p.log = nil
	p.logGen++
	for _, h := range p.rules {
		h.hits = 0
	}
}

// reqState travels with a forwarded request to the reverse proxy's hooks.
type reqState struct {
	entry     logRef
	info      RequestInfo
	act       Action
	clientCtx context.Context
	upCtx     context.Context // cancelled by StopUpstream
}

type stateKey struct{}

// logRef points at a request log entry; it goes stale on ResetCounts.
type logRef struct{ gen, idx int }

// record counts the request, logs it and picks the action of the rule that
// acts on it.
func (p *Proxy) record(r *http.Request, info RequestInfo, authorized bool) (logRef, Action) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[Key{Method: r.Method, Verb: info.Verb, Resource: info.Resource}]++
	e := Request{
		Time: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		RequestInfo: info, Outcome: OutcomePending,
	}
	var act Action
	for _, h := range p.rules {
		if authorized && h.take(info) {
			act = h.rule.Action
			e.Rule, e.Action = h.rule.Name, act.String()
			break
		}
	}
	if len(p.log) >= maxLog {
		return logRef{gen: p.logGen, idx: -1}, act
	}
	p.log = append(p.log, e)
	return logRef{gen: p.logGen, idx: len(p.log) - 1}, act
}

func (p *Proxy) finish(ref logRef, outcome string, code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ref.gen != p.logGen || ref.idx < 0 || ref.idx >= len(p.log) {
		return
	}
	e := &p.log[ref.idx]
	e.Outcome, e.Code = outcome, code
	if p.cfg.Logf != nil {
		p.cfg.Logf("%s %s?%s [%s %s] rule=%q action=%q: %s %d", e.Method, e.Path, e.Query, e.Verb, e.Resource, e.Rule, e.Action, outcome, code)
	}
}

func (p *Proxy) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(p.token)) == 1
}

// ServeHTTP handles one client request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		reset(w)
		return
	}
	p.inflight.Add(1)
	p.mu.Unlock()
	defer p.inflight.Done()

	info := classify(r.Method, r.URL.Path, r.URL.Query().Get("watch"))
	authorized := p.authorized(r)
	ref, act := p.record(r, info, authorized)
	if !authorized {
		writeStatus(w, http.StatusUnauthorized, "faultproxy: missing or wrong bearer token", -1)
		p.finish(ref, OutcomeUnauthorized, http.StatusUnauthorized)
		return
	}

	if act.delay > 0 {
		t := time.NewTimer(act.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			p.clientGone(ref)
		}
	}

	switch act.kind {
	case kindStatus:
		writeStatus(w, act.code, "", act.retryAfter)
		p.finish(ref, OutcomeAnswered, act.code)
		return
	case kindResetBefore:
		p.finish(ref, OutcomeReset, 0)
		reset(w)
		return
	}

	upCtx, stopped := p.upstream()
	if stopped {
		p.unreachable(w, ref)
		return
	}
	// The forwarded request ends when the client goes or the upstream stops.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(upCtx, cancel)()
	st := &reqState{entry: ref, info: info, act: act, clientCtx: r.Context(), upCtx: upCtx}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(ctx, stateKey{}, st)))
}

func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.target)
	pr.Out.Header.Del("Authorization") // the proxy's token: the upstream sees the client certificate
}

func (p *Proxy) modifyResponse(resp *http.Response) error {
	st, _ := resp.Request.Context().Value(stateKey{}).(*reqState)
	if st == nil {
		return nil
	}
	resp.Body = &cutOnStop{ReadCloser: resp.Body, upCtx: st.upCtx}
	switch st.act.kind {
	case kindResetAfter:
		if st.info.Verb != VerbWatch {
			_, _ = io.Copy(io.Discard, resp.Body) // the whole answer: the write has landed
		}
		_ = resp.Body.Close()
		return errResetAfter
	case kindCutWatch, kindWatchError:
		if resp.StatusCode == http.StatusOK {
			_ = resp.Body.Close()
			var tail []byte
			if st.act.kind == kindWatchError {
				tail = errorEvent(st.act.code)
			}
			resp.Body = io.NopCloser(bytes.NewReader(tail))
		}
	}
	p.finish(st.entry, OutcomeForwarded, resp.StatusCode)
	return nil
}

// cutOnStop makes sure a body cut by StopUpstream ends with an error, so the
// client's connection is closed mid-body: the transport sometimes reports a
// cancelled body as a clean end.
type cutOnStop struct {
	io.ReadCloser
	upCtx context.Context
}

func (c *cutOnStop) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	if err == io.EOF && c.upCtx.Err() != nil {
		err = errUpstreamStopped
	}
	return n, err
}

func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	st, _ := r.Context().Value(stateKey{}).(*reqState)
	if st == nil {
		reset(w)
		return
	}
	switch {
	case errors.Is(err, errResetAfter):
		p.finish(st.entry, OutcomeReset, 0)
		reset(w)
	case st.clientCtx.Err() != nil:
		p.clientGone(st.entry)
	default: // refused, reset by the upstream, or cut by StopUpstream
		p.unreachable(w, st.entry)
	}
}

// clientGone records that the client went before its answer and aborts the
// connection: a handler that just returned would send an empty 200, which a
// client closing its side (a TLS close_notify comes before the TCP close)
// can still read as the answer to a request it gave up on.
func (p *Proxy) clientGone(ref logRef) {
	p.finish(ref, OutcomeClientGone, 0)
	panic(http.ErrAbortHandler)
}

// unreachable resets the client's connection, the nearest a proxy comes to
// the refused connection a client of a stopped or restarting kube-apiserver
// itself would see.
func (p *Proxy) unreachable(w http.ResponseWriter, ref logRef) {
	p.finish(ref, OutcomeUnreachable, 0)
	reset(w)
}

// reset closes the client's connection with a TCP RST (SO_LINGER 0),
// without a TLS close_notify: the client sees "connection reset by peer".
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	raw := conn
	if tc, ok := conn.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = raw.Close()
}

type logfWriter func(format string, args ...any)

func (f logfWriter) Write(b []byte) (int, error) {
	f("%s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
