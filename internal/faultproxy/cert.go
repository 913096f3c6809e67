package faultproxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"time"
)

// selfSigned makes a certificate for 127.0.0.1, ::1 and localhost that is
// its own CA, valid for a day, and returns it with its PEM.
func selfSigned(commonName string, usage x509.ExtKeyUsage) (tls.Certificate, []byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{usage},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	return cert, certPEM, keyPEM, err
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

// WriteKubeconfig writes Kubeconfig to path (mode 0600).
func (p *Proxy) WriteKubeconfig(path string) error {
	return os.WriteFile(path, p.Kubeconfig(), 0o600)
}
