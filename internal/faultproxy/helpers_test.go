package faultproxy

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// Client returns an HTTP client that trusts the proxy and sends its token.
func (p *Proxy) Client() *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.caPEM)
	return &http.Client{Transport: &bearer{token: p.token, next: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
	}}}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Kubeconfig returns a kubeconfig (in JSON, which kubeconfig readers accept
// as YAML) with one context, "faultproxy", that reaches the proxy: its URL,
// its CA and its token.
func (p *Proxy) Kubeconfig() []byte {
	type named struct {
		Name    string         `json:"name"`
		Cluster map[string]any `json:"cluster,omitempty"`
		User    map[string]any `json:"user,omitempty"`
		Context map[string]any `json:"context,omitempty"`
	}
	cfg := map[string]any{
		"apiVersion": "v1",
		"kind":       "Config",
		"clusters": []named{{Name: "faultproxy", Cluster: map[string]any{
			"server":                     p.URL(),
			"certificate-authority-data": base64.StdEncoding.EncodeToString(p.caPEM),
		}}},
		"users":           []named{{Name: "faultproxy", User: map[string]any{"token": p.token}}},
		"contexts":        []named{{Name: "faultproxy", Context: map[string]any{"cluster": "faultproxy", "user": "faultproxy"}}},
		"current-context": "faultproxy",
	}
	out, _ := json.MarshalIndent(cfg, "", "  ")
	return append(out, '\n')
}
