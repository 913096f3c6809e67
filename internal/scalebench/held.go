package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/faultproxy"
)

// phasePlanHeld is the plan of the applied state against an API server that
// answers nothing (-held-reads).
const phasePlanHeld = "plan (every read held)"

// defaultRequestTimeout is the provider's default request_timeout.
const defaultRequestTimeout = 60 * time.Second

// measureHeldReads plans the state dk applied once more, through a fault
// proxy that holds every GET and LIST until the client gives up: the plan
// must fail on its own, after about one request_timeout.
func (b *bench) measureHeldReads(ctx context.Context, dk *configRun, apps []app) *phaseResult {
	cfg := b.cluster.RESTConfig()
	p, err := faultproxy.Start(faultproxy.Config{Upstream: faultproxy.Upstream{
		URL: cfg.Host, CAData: cfg.CAData, CertData: cfg.CertData, KeyData: cfg.KeyData,
	}})
	if err != nil {
		return &phaseResult{Err: err.Error()}
	}
	defer func() { _ = p.Close() }()
	for _, verb := range []string{faultproxy.VerbGet, faultproxy.VerbList} {
		p.Add(faultproxy.Rule{Name: "hold " + verb, Verb: verb, Action: faultproxy.Delay(time.Hour)})
	}
	dir := filepath.Join(filepath.Dir(dk.dir), "held")
	state, err := os.ReadFile(filepath.Join(dk.dir, "terraform.tfstate"))
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "terraform.tfstate"), state, 0o644)
	}
	if err == nil {
		cfg := deckhouseConfig(apps, providerOptions{Host: p.URL(), Token: p.Token(), CA: string(p.CAPEM()),
			RequestTimeout: b.o.requestTimeout})
		err = os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644)
	}
	if err != nil {
		return &phaseResult{Err: err.Error()}
	}
	par := fmt.Sprintf("-parallelism=%d", b.o.parallelism)
	sp := phaseSpec{name: phasePlanHeld, args: []string{"plan", "-input=false", "-no-color", par}, want: 1, runs: 1}
	hc := *dk
	hc.dir, hc.log = dir, filepath.Join(dir, "tofu.log")
	res := b.measurePhase(ctx, &hc, sp)
	held := 0
	var log strings.Builder
	for _, r := range p.Requests() {
		if strings.HasPrefix(r.Rule, "hold ") {
			held++
		}
		fmt.Fprintf(&log, "%s %s %s %s/%s rule=%q outcome=%s code=%d\n", r.Time.Format("15:04:05.000"), r.Verb, r.Resource, r.Namespace, r.Name, r.Rule, r.Outcome, r.Code)
	}
	_ = os.WriteFile(filepath.Join(dir, "proxy.log"), []byte(log.String()), 0o644)
	res.Held = held
	return res
}

// renderHeld reports the plans with every read held against their bound,
// two request timeouts.
func renderHeld(results []*sizeResult, timeout time.Duration) string {
	if timeout <= 0 {
		timeout = defaultRequestTimeout
	}
	var b strings.Builder
	for _, r := range results {
		if r.HeldReads == nil {
			continue
		}
		h := r.HeldReads
		verdict := "pass"
		switch {
		case h.Err != "":
			verdict = "FAIL: " + errSuffix(h.Err)
		case h.Wall > 2*timeout:
			verdict = "FAIL: over 2 × request_timeout"
		}
		fmt.Fprintf(&b, "\nN=%d %s: %s s with request_timeout %s (bound 2 × request_timeout = %s), %d requests held: %s\n",
			r.N, phasePlanHeld, seconds(h.Wall), timeout, 2*timeout, h.Held, verdict)
	}
	return b.String()
}
