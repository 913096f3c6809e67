package dpclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// Condition types of an Application a wait can end on.
const (
	ConditionConfigurationApplied = "ConfigurationApplied"
	ConditionReady                = "Ready"
)

// Backoff between attempts of a retried request or watch: capped exponential
// with full jitter.
type Backoff struct {
	Initial, Max time.Duration
	attempt      int
}

// Next returns the delay before the next attempt.
func (b *Backoff) Next() time.Duration {
	d := b.Initial << min(b.attempt, 16)
	if d > b.Max || d <= 0 {
		d = b.Max
	}
	b.attempt++
	return d/2 + rand.N(d/2+1) // jitter, not security
}

// Reset starts over after progress.
func (b *Backoff) Reset() { b.attempt = 0 }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Verdict is DP's answer on the generation of an Application.
type Verdict struct {
	Done   bool   // the condition is True for the current generation
	Failed bool   // the condition is False with a terminal reason
	Reason string // reason of the condition (when known)
}

// VerdictOf reads DP's verdict on obj: the condition typ for the object's
// current generation. Ready carries no observedGeneration in DP's status, so
// it counts only once ConfigurationApplied is True for the generation.
func VerdictOf(obj *unstructured.Unstructured, typ string) Verdict {
	conds := Conditions(obj)
	applied := meta.FindStatusCondition(conds, ConditionConfigurationApplied)
	if applied == nil || applied.ObservedGeneration != obj.GetGeneration() {
		return Verdict{}
	}
	if applied.Status == metav1.ConditionFalse {
		return Verdict{Failed: dpapi.Terminal(applied.Reason), Reason: applied.Reason}
	}
	if applied.Status != metav1.ConditionTrue {
		return Verdict{Reason: applied.Reason}
	}
	if typ == ConditionConfigurationApplied || typ == "" {
		return Verdict{Done: true, Reason: applied.Reason}
	}
	c := meta.FindStatusCondition(conds, typ)
	switch {
	case c == nil:
		return Verdict{}
	case c.ObservedGeneration != 0 && c.ObservedGeneration != obj.GetGeneration():
		return Verdict{Reason: c.Reason}
	case c.Status == metav1.ConditionTrue:
		return Verdict{Done: true, Reason: c.Reason}
	case c.Status == metav1.ConditionFalse:
		return Verdict{Failed: dpapi.Terminal(c.Reason), Reason: c.Reason}
	}
	return Verdict{Reason: c.Reason}
}

// WaitError is a wait that ended without DP's success verdict.
type WaitError struct {
	Condition string
	Rejected  bool   // DP answered with a terminal reason
	Timeout   bool   // the deadline passed
	Deleted   bool   // the Application was deleted during the wait
	Err       error  // the last transient error, or the reason of the end
	Summary   string // status.summary and every condition, as one line
}

func (e *WaitError) Error() string {
	var msg string
	switch {
	case e.Rejected:
		msg = "DP did not apply the settings (" + e.Condition + " reached a terminal reason)"
	case e.Deleted:
		msg = "the Application was deleted while waiting for DP"
	case e.Timeout:
		msg = "timed out waiting for condition " + e.Condition + " of the current generation"
	default:
		msg = "waiting for condition " + e.Condition
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Summary != "" {
		msg += ". Last status: " + e.Summary
	}
	return msg
}

func (e *WaitError) Unwrap() error { return e.Err }

// StatusSummary renders status.summary and every condition of obj in one
// line, for progress logs and errors.
func StatusSummary(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	var parts []string
	state, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "state")
	msg, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "message")
	tip, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "tip")
	msg, tip = Text(obj, SummaryGeneration(obj), msg), Text(obj, SummaryGeneration(obj), tip)
	if state != "" || msg != "" {
		s := "state " + orDash(state)
		if msg != "" {
			s += " (" + msg + ")"
		}
		if tip != "" {
			s += ", tip: " + tip
		}
		parts = append(parts, s)
	}
	conds := Conditions(obj)
	sort.Slice(conds, func(i, j int) bool { return conds[i].Type < conds[j].Type })
	for _, c := range conds {
		s := fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" {
			s += " " + c.Reason
		}
		if c.Message != "" {
			s += ": " + Text(obj, c.ObservedGeneration, c.Message)
		}
		parts = append(parts, s)
	}
	parts = append(parts, fmt.Sprintf("generation %d", obj.GetGeneration()))
	return strings.Join(parts, "; ")
}

// AppliedGeneration is the generation DP's record of the settings it
// applied (status.lastAppliedConfiguration) is of: the observedGeneration of
// ConfigurationApplied when it is True; 0 when DP has recorded no
// successful apply.
func AppliedGeneration(obj *unstructured.Unstructured) int64 {
	if obj == nil {
		return 0
	}
	c := meta.FindStatusCondition(Conditions(obj), ConditionConfigurationApplied)
	if c == nil || c.Status != metav1.ConditionTrue {
		return 0
	}
	if v, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "lastAppliedConfiguration"); !ok || v == nil {
		return 0
	}
	return c.ObservedGeneration
}

// SummaryGeneration is the generation status.summary is about, which DP
// writes with ConfigurationApplied: that condition's observedGeneration.
func SummaryGeneration(obj *unstructured.Unstructured) int64 {
	if c := meta.FindStatusCondition(Conditions(obj), ConditionConfigurationApplied); c != nil {
		return c.ObservedGeneration
	}
	return 0
}

// Text is DP's text about generation gen of obj (a condition's message,
// status.summary's message or tip), or a notice in its place when later
// writes replaced that generation before DP applied it: gen is neither obj's
// generation nor that of DP's record (AppliedGeneration). Such a text may
// quote a value that neither spec.settings nor DP's record holds any more
// (a secret rotated or removed since, another writer's value changed
// since), which no redactor can recognise. A text with no generation (0) is
// kept.
func Text(obj *unstructured.Unstructured, gen int64, text string) string {
	if text == "" || gen == 0 || gen == obj.GetGeneration() || gen == AppliedGeneration(obj) {
		return text
	}
	return fmt.Sprintf("(withheld: DP wrote it about generation %d, which a later write replaced before DP applied it)", gen)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WaitOptions of a wait.
type WaitOptions struct {
	// Condition to wait for: ConfigurationApplied (default) or Ready.
	Condition string
	// Redact is applied to every DP text the wait logs or returns (the
	// caller's secrets out of DP's messages). Nil keeps texts as they are.
	Redact func(string) string
}

// Wait waits for DP's verdict on the generation of the Application obj
// (written by this provider: its resourceVersion is where the wait starts)
// and returns the last object seen. The waits of a Client share one watch
// per namespace (see watchHub). Only the verdict, the deletion of the
// Application, a refusal of the watch (RBAC, the API gone, the client's
// verdict on the API server) or the context's deadline end it: cut streams,
// ERROR events and server errors are retried with a capped exponential
// backoff, and an expired resourceVersion is listed again. Each change of a
// condition or of status.summary.state is logged.
func (c *Client) Wait(ctx context.Context, obj *unstructured.Unstructured, opts WaitOptions) (*unstructured.Unstructured, error) {
	if opts.Condition == "" {
		opts.Condition = ConditionConfigurationApplied
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if v := VerdictOf(obj, opts.Condition); v.Done || v.Failed {
		return obj, verdictErr(opts.Condition, v, obj)
	}
	progress := c.progress(ctx, obj, opts.Redact)
	w := c.hub.join(obj.GetNamespace(), obj.GetName(), obj.GetResourceVersion())
	defer c.hub.leave(w)
	last := obj
	var lastErr error
	for {
		ev, err := w.next(ctx)
		switch {
		case ctx.Err() != nil || Classify(err).RateLimited():
			// The rate limiter refuses to wait past the deadline: a timeout.
			return last, c.waitEnded(ctx, opts.Condition, last, lastErr, Classify(err).RateLimited())
		case err == nil && ev.err == nil && ev.note != nil:
			lastErr = ev.note
			continue
		case err == nil && ev.err != nil:
			err = ev.err
		case err == nil && ev.deleted:
			return last, &WaitError{Condition: opts.Condition, Deleted: true, Summary: StatusSummary(last)}
		}
		if err != nil {
			return last, fmt.Errorf("watching Application %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
		}
		last = ev.obj
		progress(ev.obj)
		if v := VerdictOf(ev.obj, opts.Condition); v.Done || v.Failed {
			return ev.obj, verdictErr(opts.Condition, v, ev.obj)
		}
	}
}

// waitEnded is the error of a wait whose context ended.
func (c *Client) waitEnded(ctx context.Context, cond string, last *unstructured.Unstructured, lastErr error, limited bool) error {
	werr := &WaitError{Condition: cond, Timeout: limited || errors.Is(ctx.Err(), context.DeadlineExceeded), Summary: StatusSummary(last)}
	if lastErr != nil {
		werr.Err = fmt.Errorf("last error: %w", lastErr)
	} else if !werr.Timeout {
		werr.Err = ctx.Err()
	}
	return werr
}

var errGone = errors.New("resourceVersion expired")

// transientError marks an error the wait retries.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

func verdictErr(cond string, v Verdict, obj *unstructured.Unstructured) error {
	if !v.Failed {
		return nil
	}
	return &WaitError{Condition: cond, Rejected: true, Err: fmt.Errorf("reason %s", v.Reason), Summary: StatusSummary(obj)}
}

// progress returns a function that logs each change of a condition or of
// status.summary.state.
func (c *Client) progress(ctx context.Context, first *unstructured.Unstructured, redact func(string) string) func(*unstructured.Unstructured) {
	key := func(u *unstructured.Unstructured) map[string]string {
		m := map[string]string{}
		m["summary.state"], _, _ = unstructured.NestedString(u.Object, "status", "summary", "state")
		for _, cond := range Conditions(u) {
			m[cond.Type] = string(cond.Status) + " " + cond.Reason
		}
		return m
	}
	seen := key(first)
	return func(u *unstructured.Unstructured) {
		now := key(u)
		changed := false
		for k, v := range now {
			if seen[k] != v {
				changed = true
			}
		}
		if changed {
			c.log(ctx, "Application status changed", map[string]any{
				"namespace": u.GetNamespace(), "name": u.GetName(), "status": redact(StatusSummary(u))})
		}
		seen = now
	}
}

// getWithRetry reads one object, retrying transient errors until ctx ends.
func (c *Client) getWithRetry(ctx context.Context, client dynamic.ResourceInterface, name string) (*unstructured.Unstructured, error) {
	b := Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second}
	var r retries
	for {
		rctx, cancel := c.readCtx(ctx)
		u, err := client.Get(rctx, name, metav1.GetOptions{})
		cancel()
		err = c.outage.ShareVerdict(err)
		if err == nil || !r.again(err) || ctx.Err() != nil {
			return u, err
		}
		if sleep(ctx, b.Next()) != nil {
			return nil, err
		}
	}
}
