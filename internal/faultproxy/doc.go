// Package faultproxy is a fault-injecting reverse proxy for the Kubernetes
// API, for tests. It stands between a client (the provider, driven by
// OpenTofu in acceptance tests) and kube-apiserver, forwards every request,
// and acts on the requests its rules match: it answers with a status, resets
// the connection before or after forwarding, delays, cuts watch streams, or
// injects watch ERROR events. It counts every request it sees. It uses the
// standard library only.
//
// # Use in an acceptance test
//
// Start the proxy in front of the local control plane, with the control
// plane's own credentials, and point the provider at the proxy:
//
//	cfg := cp.RESTConfig() // localdp.ControlPlane
//	p, err := faultproxy.Start(faultproxy.Config{Upstream: faultproxy.Upstream{
//		URL: cfg.Host, CAData: cfg.CAData, CertData: cfg.CertData, KeyData: cfg.KeyData,
//	}})
//	if err != nil {
//		t.Fatal(err)
//	}
//	t.Cleanup(func() { _ = p.Close() })
//
//	provider := fmt.Sprintf(`provider "deckhouse" {
//	  host                   = %q
//	  token                  = %q
//	  cluster_ca_certificate = %q
//	}`, p.URL(), p.Token(), p.CAPEM())
//
//	// The first server-side apply PATCH of Applications is answered 503.
//	patch := p.Add(faultproxy.Rule{Verb: faultproxy.VerbPatch, Resource: "applications",
//		Times: 1, Action: faultproxy.Status(503)})
//	// Every watch is cut at once, until the rule is disabled.
//	cut := p.Add(faultproxy.Rule{Verb: faultproxy.VerbWatch, Action: faultproxy.CutWatch()})
//	time.AfterFunc(20*time.Second, cut.Disable)
//
//	// ... run the steps, then:
//	if patch.Hits() != 1 || p.Count(faultproxy.VerbDelete, "applications") != 0 { ... }
//	p.ResetCounts()
//
// The provider sees the proxy as the cluster: its URL, its self-signed
// certificate (CAPEM) and its bearer token (Token). The proxy refuses any
// other token with 401 and never forwards those requests, so a test cannot
// reach the cluster past the proxy by mistake. It forwards with the upstream
// credentials of Config.Upstream (the client certificate the local control
// plane's admin config holds), not the client's.
//
// # Rules and actions
//
// A Rule matches on verb (get, list, watch, create, update, patch, delete,
// deletecollection, read from the path and the watch parameter as
// kube-apiserver reads them) and resource. Rules are tried in the order they
// were added; the first enabled one with budget left acts, and its budget
// (Times, 0 for none) goes down by one. Handle switches a rule off at run
// time and reads its hits; ClearRules removes them all.
//
// Actions: Status (a Kubernetes Status body with the reason kube-apiserver
// gives the code; WithRetryAfter adds the header and
// details.retryAfterSeconds), ResetBefore (TCP RST, nothing forwarded),
// ResetAfter (forwarded, the whole answer read so a write has landed, then
// TCP RST: the reply is lost), Delay (held, then forwarded), CutWatch (the
// stream ends cleanly after the response headers) and WatchError (an ERROR
// event with a Status of the given code, then the end of the stream).
//
// # Decisions
//
//   - TLS with a certificate made at Start, because the provider and
//     client-go are meant to talk TLS to a cluster, and a plain-HTTP host
//     would exercise other code paths. The proxy speaks HTTP/1.1 only, to
//     clients and upstream: a reset is then the reset of one request's
//     connection (an HTTP/2 reset would be a stream reset, or would take
//     every request of the connection with it), and client-go falls back to
//     HTTP/1.1 by itself.
//   - Every watch event is flushed to the client as it arrives.
//   - An unreachable upstream (StopUpstream, or a kube-apiserver that is
//     restarting and refuses connections) resets the client's connection:
//     the nearest a proxy can come to the refused connection a client of
//     the restarting server sees. Requests in
//     flight when the upstream goes away end the same way, or, once their
//     answer has begun, with a connection closed mid-body.
//   - Counters count every request the proxy sees, also those a rule
//     answered or reset and those refused for a wrong token, by method,
//     verb and resource (Count, Counts). The request log (Requests) keeps
//     each request's verb, resource, rule, action, outcome and status for
//     finer assertions, such as watch requests per second.
//
// # Things to know
//
// Go's http.Transport (under client-go) sends an idempotent request without
// a body (GET) again, once, when a reused keep-alive connection is reset
// before any answer: a single ResetBefore of a GET can go unnoticed. Give
// such a rule a budget of 2 or more, or match writes, when the client must
// see the reset. client-go itself retries a GET that fails with a reset or
// an EOF (once a second, up to 10 times), and any request answered 429 or
// 5xx with a Retry-After. A kube-apiserver that has just started can answer
// a first request 429 by itself, so exact counts are best taken after a
// request has gone through (ResetCounts).
package faultproxy
