package faultproxy

import (
	"fmt"
	"time"
)

// actionKind is what the proxy does with a request a rule matched.
type actionKind int

const (
	kindForward     actionKind = iota // forward (after the delay, if any)
	kindStatus                        // answer without forwarding
	kindResetBefore                   // reset the client connection without forwarding
	kindResetAfter                    // forward, read the whole answer, reset the client connection
	kindCutWatch                      // forward, end the stream after the response headers
	kindWatchError                    // forward, send an ERROR event, end the stream
)

// Action is what the proxy does with a request a rule matched. Build one with
// Status, ResetBefore, ResetAfter, Delay, CutWatch or WatchError; the With…
// methods return a modified copy.
type Action struct {
	kind       actionKind
	code       int
	retryAfter int // seconds; negative: no Retry-After header
	delay      time.Duration
}

// Status answers the request with code and a Kubernetes Status body (kind
// Status, status Failure, the reason kube-apiserver gives that code) without
// forwarding it.
func Status(code int) Action {
	return Action{kind: kindStatus, code: code, retryAfter: -1}
}

// ResetBefore resets the client's connection (TCP RST) without forwarding the
// request: kube-apiserver never sees it.
func ResetBefore() Action { return Action{kind: kindResetBefore, retryAfter: -1} }

// ResetAfter forwards the request, reads kube-apiserver's whole answer and
// then resets the client's connection: a write lands and its reply is lost.
// On a watch the connection is reset as soon as kube-apiserver has sent the
// response headers.
func ResetAfter() Action { return Action{kind: kindResetAfter, retryAfter: -1} }

// Delay holds the request for d, then forwards it. The wait ends early when
// the client gives up (its context or connection ends); the request is then
// not forwarded, and the connection is closed with no answer.
func Delay(d time.Duration) Action { return Action{kind: kindForward, delay: d, retryAfter: -1} }

// CutWatch forwards a watch request and ends the response stream cleanly
// (the terminating chunk, as kube-apiserver does when a watch times out)
// right after the response headers. A request that is not answered 200 is
// passed through unchanged.
func CutWatch() Action { return Action{kind: kindCutWatch, retryAfter: -1} }

// WatchError forwards a watch request, sends an ERROR event carrying a
// Status with code (500: InternalError, 410: Expired ...) right after the
// response headers, and ends the stream, as kube-apiserver does when a watch
// fails.
func WatchError(code int) Action { return Action{kind: kindWatchError, code: code, retryAfter: -1} }

// WithRetryAfter adds a Retry-After header of the given seconds to a Status
// answer, and details.retryAfterSeconds to its body, as kube-apiserver does
// when it throttles.
func (a Action) WithRetryAfter(seconds int) Action { a.retryAfter = seconds; return a }

// String names the action, as the request log shows it.
func (a Action) String() string {
	var s string
	switch a.kind {
	case kindForward:
		s = "forward"
	case kindStatus:
		s = fmt.Sprintf("status %d", a.code)
		if a.retryAfter >= 0 {
			s += fmt.Sprintf(" retry-after %d", a.retryAfter)
		}
	case kindResetBefore:
		s = "reset before forwarding"
	case kindResetAfter:
		s = "reset after forwarding"
	case kindCutWatch:
		s = "cut watch"
	case kindWatchError:
		s = fmt.Sprintf("watch ERROR %d", a.code)
	}
	if a.delay > 0 {
		s = fmt.Sprintf("delay %s, %s", a.delay, s)
	}
	return s
}

// Rule matches requests and says what to do with them. Every set field must
// match; the zero Rule matches every request. The first enabled rule with
// budget left that matches a request acts on it; the others are not
// consulted.
type Rule struct {
	// Name identifies the rule in the request log. Default "rule <n>".
	Name string
	// Verb is a Verb constant ("watch", "patch").
	Verb string
	// Resource is the plural resource, with "/subresource" for a subresource
	// ("applications", "applications/status").
	Resource string
	// Times is the budget: the rule acts on this many requests and then
	// matches no more. 0 means unlimited while the rule is enabled.
	Times int
	// Every makes the rule act on every Every-th matching request only (the
	// Every-th, 2*Every-th, ...), for a steady share of faults: 5 is 20 %.
	// 0 or 1: every matching request.
	Every int
	// Action is what to do with a matching request. The zero Action forwards
	// it unchanged (useful to count requests of one kind).
	Action Action
}

func (r *Rule) matches(info RequestInfo) bool {
	return (r.Verb == "" || r.Verb == info.Verb) && (r.Resource == "" || r.Resource == info.Resource)
}

// Handle is a rule added to a Proxy. Its methods are safe for concurrent
// use.
type Handle struct {
	p       *Proxy
	rule    Rule
	enabled bool
	left    int // budget left; meaningful when rule.Times > 0
	hits    int
	seen    int // matching requests, for Every
}

// Disable switches the rule off; requests it would have matched go on to
// the next rules.
func (h *Handle) Disable() { h.p.mu.Lock(); h.enabled = false; h.p.mu.Unlock() }

// Hits is the number of requests the rule acted on since it was added or
// since Proxy.ResetCounts.
func (h *Handle) Hits() int { h.p.mu.Lock(); defer h.p.mu.Unlock(); return h.hits }

// take reports whether the rule acts on the request, consuming its budget.
// The caller holds p.mu.
func (h *Handle) take(info RequestInfo) bool {
	if !h.enabled || (h.rule.Times > 0 && h.left <= 0) {
		return false
	}
	if !h.rule.matches(info) {
		return false
	}
	h.seen++
	if h.rule.Every > 1 && h.seen%h.rule.Every != 0 {
		return false
	}
	if h.rule.Times > 0 {
		h.left--
	}
	h.hits++
	return true
}
