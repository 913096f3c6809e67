package dpclient

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Config is the connection configuration of a cluster, resolved from the
// provider block and its environment variables. It names the cluster the way
// the hashicorp/kubernetes provider does: kubeconfig files with the explicit
// settings as overrides, or the explicit settings alone, or, when nothing
// names a cluster, the pod's service account (in-cluster configuration).
type Config struct {
	// ConfigPaths are kubeconfig files, merged in order (for a key set in
	// several files the first file wins). A leading "~" is the home folder.
	ConfigPaths []string
	// ConfigContext, ConfigContextAuthInfo and ConfigContextCluster choose a
	// context, a user and a cluster of the kubeconfig.
	ConfigContext         string
	ConfigContextAuthInfo string
	ConfigContextCluster  string

	// Host is the API server address (https://host:port).
	Host                 string
	Username             string
	Password             string
	Token                string
	ClientCertificate    string // PEM
	ClientKey            string // PEM
	ClusterCACertificate string // PEM
	Insecure             bool
	TLSServerName        string
	ProxyURL             string
	// Exec is a client-go credential plugin.
	Exec *ExecConfig

	QPS       float32
	Burst     int
	UserAgent string

	// LogRequest, when set, is called after every HTTP request to the API
	// server with the request's context. It never receives bodies or
	// headers.
	LogRequest func(ctx context.Context, r Request)

	// InCluster is where the in-cluster configuration is read from; the zero
	// value reads the pod's own service account and environment.
	InCluster InClusterSource

	// Getenv reads KUBECONFIG, the fallback used when nothing else names a
	// cluster; nil means os.Getenv.
	Getenv func(string) string
}

// ExecConfig is a client-go credential plugin, as in a kubeconfig's exec
// section.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// Request is one HTTP request to the API server as Config.LogRequest
// receives it. A watch's Duration ends when the response headers arrive.
type Request struct {
	Method string
	// URL is the request URL, query included (names, selectors and resource
	// versions); user information in it is redacted.
	URL string
	// Status is the HTTP status code, 0 when no response arrived.
	Status   int
	Duration time.Duration
	// Err is the transport error, nil when a response arrived.
	Err error
}

// DefaultServiceAccountDir is where Kubernetes mounts a pod's service
// account token and the cluster's CA certificate.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InClusterSource is where the in-cluster configuration comes from, so that
// tests can point it at a folder and an environment of their own.
type InClusterSource struct {
	// Dir holds the files "token" and "ca.crt"; empty means
	// DefaultServiceAccountDir.
	Dir string
	// Getenv reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT; nil
	// means os.Getenv.
	Getenv func(string) string
}

// ErrNoCluster is wrapped by the error of RESTConfig when nothing names a
// cluster: no kubeconfig file, no host, and no usable in-cluster service
// account.
var ErrNoCluster = errors.New("no cluster is configured")

// ConfigError is the error of RESTConfig: the configuration itself cannot
// be used (nothing names a cluster, a kubeconfig file is missing or
// invalid, a context does not exist), as opposed to a cluster that cannot
// be reached. It wraps the cause: errors.Is(err, ErrNoCluster) and
// errors.Is(err, fs.ErrNotExist) tell the common cases apart.
type ConfigError struct {
	Err error
}

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Named reports whether the configuration names a cluster itself (a
// kubeconfig file or a host). When it does not, RESTConfig falls back to the
// kubeconfig files of KUBECONFIG, as kubectl does, then to the in-cluster
// configuration.
func (c *Config) Named() bool {
	return len(c.ConfigPaths) > 0 || c.Host != ""
}

// RESTConfig builds the client configuration. It reads the kubeconfig files
// and, for the in-cluster fallback, the service account, but never contacts
// the API server. Every error is a *ConfigError.
func (c *Config) RESTConfig() (*rest.Config, error) {
	cfg, err := c.restConfig()
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	cfg.QPS = c.QPS
	cfg.Burst = c.Burst
	if c.UserAgent != "" {
		cfg.UserAgent = c.UserAgent
	}
	if c.LogRequest != nil {
		log := c.LogRequest
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return &loggingRoundTripper{next: rt, log: log}
		})
	}
	return cfg, nil
}

func (c *Config) restConfig() (*rest.Config, error) {
	overrides := c.overrides()
	if !c.Named() {
		if paths := c.kubeconfigEnv(); len(paths) > 0 {
			return c.fromFiles(paths, "KUBECONFIG ", overrides)
		}
		base, err := c.inCluster()
		if err != nil {
			return nil, err
		}
		return clientConfig(clientcmd.NewDefaultClientConfig(*base, overrides))
	}
	if len(c.ConfigPaths) == 0 {
		// Only explicit settings: build from an empty kubeconfig.
		return clientConfig(clientcmd.NewDefaultClientConfig(*clientcmdapi.NewConfig(), overrides))
	}
	return c.fromFiles(c.ConfigPaths, "", overrides)
}

// kubeconfigEnv is the list of files KUBECONFIG names (separated like PATH),
// empty entries dropped.
func (c *Config) kubeconfigEnv() []string {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return slices.DeleteFunc(filepath.SplitList(getenv("KUBECONFIG")), func(p string) bool { return p == "" })
}

// fromFiles builds the configuration from kubeconfig files merged in order;
// source names where the list came from in the error of a missing file.
func (c *Config) fromFiles(files []string, source string, overrides *clientcmd.ConfigOverrides) (*rest.Config, error) {
	paths := make([]string, len(files))
	for i, p := range files {
		p, err := expandHome(p)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("reading the %skubeconfig file %q: %w", source, p, err)
		}
		paths[i] = p
	}
	rules := &clientcmd.ClientConfigLoadingRules{}
	if len(paths) == 1 {
		rules.ExplicitPath = paths[0]
	} else {
		rules.Precedence = paths
	}
	return clientConfig(clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides))
}

func clientConfig(cc clientcmd.ClientConfig) (*rest.Config, error) {
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client configuration: %w", err)
	}
	return cfg, nil
}

// overrides are the explicit settings, applied over the kubeconfig.
func (c *Config) overrides() *clientcmd.ConfigOverrides {
	o := &clientcmd.ConfigOverrides{}
	o.CurrentContext = c.ConfigContext
	o.Context.AuthInfo = c.ConfigContextAuthInfo
	o.Context.Cluster = c.ConfigContextCluster
	o.ClusterInfo.Server = c.Host
	if c.ClusterCACertificate != "" {
		o.ClusterInfo.CertificateAuthorityData = []byte(c.ClusterCACertificate)
	}
	o.ClusterInfo.InsecureSkipTLSVerify = c.Insecure
	o.ClusterInfo.TLSServerName = c.TLSServerName
	o.ClusterInfo.ProxyURL = c.ProxyURL
	if c.ClientCertificate != "" {
		o.AuthInfo.ClientCertificateData = []byte(c.ClientCertificate)
	}
	if c.ClientKey != "" {
		o.AuthInfo.ClientKeyData = []byte(c.ClientKey)
	}
	o.AuthInfo.Token = c.Token
	if c.Username != "" {
		o.AuthInfo.Username = c.Username
		o.AuthInfo.Password = c.Password
	}
	if c.Exec != nil {
		x := &clientcmdapi.ExecConfig{
			APIVersion:      c.Exec.APIVersion,
			Command:         c.Exec.Command,
			Args:            c.Exec.Args,
			InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		}
		for _, k := range slices.Sorted(maps.Keys(c.Exec.Env)) {
			x.Env = append(x.Env, clientcmdapi.ExecEnvVar{Name: k, Value: c.Exec.Env[k]})
		}
		o.AuthInfo.Exec = x
	}
	return o
}

// hasCredentials reports whether the explicit settings authenticate.
func (c *Config) hasCredentials() bool {
	return c.Token != "" || c.Username != "" || c.ClientCertificate != "" || c.Exec != nil
}

// inCluster is the kubeconfig of the in-cluster configuration, built like
// rest.InClusterConfig: the API server from KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, the service account's token file (re-read by
// client-go, so a rotated token is picked up) and CA certificate. Explicit
// settings still apply over it.
func (c *Config) inCluster() (*clientcmdapi.Config, error) {
	getenv, dir := c.InCluster.Getenv, c.InCluster.Dir
	if getenv == nil {
		getenv = os.Getenv
	}
	if dir == "" {
		dir = DefaultServiceAccountDir
	}
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("%w: no kubeconfig file and no host are set, KUBECONFIG is not set either, and this "+
			"is not a Kubernetes pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)", ErrNoCluster)
	}
	cluster := clientcmdapi.NewCluster()
	cluster.Server = "https://" + net.JoinHostPort(host, port)
	user := clientcmdapi.NewAuthInfo()
	if !c.hasCredentials() {
		tokenFile := filepath.Join(dir, "token")
		if _, err := os.ReadFile(tokenFile); err != nil {
			return nil, fmt.Errorf("%w: no kubeconfig file and no host are set, KUBECONFIG is not set either, and the service account token of "+
				"this pod cannot be read (is automountServiceAccountToken off?): %w", ErrNoCluster, err)
		}
		user.TokenFile = tokenFile
	}
	if c.ClusterCACertificate == "" && !c.Insecure {
		caFile := filepath.Join(dir, "ca.crt")
		if _, err := os.Stat(caFile); err == nil {
			cluster.CertificateAuthority = caFile
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading the in-cluster CA certificate: %w", err)
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["in-cluster"] = cluster
	kc.AuthInfos["in-cluster"] = user
	ctx := clientcmdapi.NewContext()
	ctx.Cluster, ctx.AuthInfo = "in-cluster", "in-cluster"
	kc.Contexts["in-cluster"] = ctx
	kc.CurrentContext = "in-cluster"
	return kc, nil
}

func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding %q: %w", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// loggingRoundTripper reports every request to LogRequest: method, URL,
// status and duration, never bodies or headers.
type loggingRoundTripper struct {
	next http.RoundTripper
	log  func(context.Context, Request)
}

func (l *loggingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := l.next.RoundTrip(req)
	r := Request{Method: req.Method, URL: req.URL.Redacted(), Duration: time.Since(start), Err: err}
	if resp != nil {
		r.Status = resp.StatusCode
	}
	l.log(req.Context(), r)
	return resp, err
}

// WrappedRoundTripper lets client-go's debugging helpers see through the
// wrapper.
func (l *loggingRoundTripper) WrappedRoundTripper() http.RoundTripper { return l.next }
