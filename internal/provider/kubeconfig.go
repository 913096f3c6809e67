package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// ProviderData is what Configure hands to resources and data sources. It is
// safe for concurrent use.
type ProviderData struct {
	// FieldManager is the server-side apply field manager name.
	FieldManager string
	// ForceConflicts forces server-side apply over other managers' fields.
	ForceConflicts bool
	// PlanChecks is plan_checks: planChecksBestEffort or planChecksRequired.
	PlanChecks string

	conn    connConfig
	unknown bool

	mu      sync.Mutex
	built   bool
	rest    *rest.Config
	dynamic dynamic.Interface
	client  *dpclient.Client
	err     error
}

// errNoCluster is returned when the provider block configures no cluster.
var errNoCluster = errors.New("no cluster is configured: set config_path, config_paths or host in the deckhouse " +
	"provider block (or the KUBE_CONFIG_PATH, KUBE_CONFIG_PATHS or KUBE_HOST environment variables)")

// errConfigUnknown is returned when the configuration depends on values
// unknown until apply.
var errConfigUnknown = errors.New("the deckhouse provider configuration depends on values that are not known yet " +
	"(for example attributes of resources created in the same apply), so the cluster cannot be reached now")

// ConfigUnknown reports whether part of the provider configuration was unknown
// when the provider was configured (typically during plan).
func (p *ProviderData) ConfigUnknown() bool { return p != nil && p.unknown }

// RESTConfig returns the shared client configuration, built once.
func (p *ProviderData) RESTConfig(_ context.Context) (*rest.Config, error) {
	if err := p.build(); err != nil {
		return nil, err
	}
	return rest.CopyConfig(p.rest), nil
}

// Dynamic returns the dynamic client shared by every resource and data source
// of this provider instance. It is built on first use without contacting the
// API server (no discovery).
func (p *ProviderData) Dynamic(_ context.Context) (dynamic.Interface, error) {
	if err := p.build(); err != nil {
		return nil, err
	}
	return p.dynamic, nil
}

func (p *ProviderData) build() error {
	if p == nil {
		return errors.New("the deckhouse provider is not configured")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built {
		return p.err
	}
	p.built = true
	if p.unknown {
		p.err = errConfigUnknown
		return p.err
	}
	cfg, err := p.conn.restConfig()
	if err != nil {
		p.err = err
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		p.err = fmt.Errorf("building the Kubernetes client: %w", err)
		return p.err
	}
	p.client, err = dpclient.New(cfg, dpclient.Options{Log: logLine})
	if err != nil {
		p.err = err
		return err
	}
	p.rest, p.dynamic = cfg, dyn
	return nil
}

// Client returns the cluster client shared by every resource and data source
// of this provider instance, built on first use without contacting the API
// server.
func (p *ProviderData) Client(_ context.Context) (*dpclient.Client, error) {
	if err := p.build(); err != nil {
		return nil, err
	}
	return p.client, nil
}

// connConfig is the resolved cluster connection configuration.
type connConfig struct {
	ConfigPath            string
	ConfigPaths           []string
	ConfigContext         string
	ConfigContextAuthInfo string
	ConfigContextCluster  string
	Host                  string
	Username              string
	Password              string
	Token                 string
	ClientCertificate     string
	ClientKey             string
	ClusterCACertificate  string
	Insecure              bool
	TLSServerName         string
	ProxyURL              string
	Exec                  *execConfig
	QPS                   float32
	Burst                 int
	UserAgent             string
}

type execConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// configured reports whether anything names a cluster.
func (c *connConfig) configured() bool {
	return c.ConfigPath != "" || len(c.ConfigPaths) > 0 || c.Host != ""
}

// restConfig builds the client configuration as the hashicorp/kubernetes
// provider does: kubeconfig files (if any) with the explicit attributes as
// overrides.
func (c *connConfig) restConfig() (*rest.Config, error) {
	if !c.configured() {
		return nil, errNoCluster
	}
	rules := &clientcmd.ClientConfigLoadingRules{}
	var paths []string
	if c.ConfigPath != "" {
		paths = append(paths, c.ConfigPath)
	}
	paths = append(paths, c.ConfigPaths...)
	for i, p := range paths {
		p, err := expandHome(p)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("reading the kubeconfig file %q: %w", p, err)
		}
		paths[i] = p
	}
	if len(paths) == 1 {
		rules.ExplicitPath = paths[0]
	} else if len(paths) > 1 {
		rules.Precedence = paths
	}

	overrides := &clientcmd.ConfigOverrides{}
	overrides.CurrentContext = c.ConfigContext
	overrides.Context.AuthInfo = c.ConfigContextAuthInfo
	overrides.Context.Cluster = c.ConfigContextCluster
	if c.Host != "" {
		overrides.ClusterInfo.Server = c.Host
	}
	if c.ClusterCACertificate != "" {
		overrides.ClusterInfo.CertificateAuthorityData = []byte(c.ClusterCACertificate)
	}
	if c.Insecure {
		overrides.ClusterInfo.InsecureSkipTLSVerify = true
	}
	if c.TLSServerName != "" {
		overrides.ClusterInfo.TLSServerName = c.TLSServerName
	}
	if c.ProxyURL != "" {
		overrides.ClusterInfo.ProxyURL = c.ProxyURL
	}
	if c.ClientCertificate != "" {
		overrides.AuthInfo.ClientCertificateData = []byte(c.ClientCertificate)
	}
	if c.ClientKey != "" {
		overrides.AuthInfo.ClientKeyData = []byte(c.ClientKey)
	}
	if c.Token != "" {
		overrides.AuthInfo.Token = c.Token
	}
	if c.Username != "" {
		overrides.AuthInfo.Username = c.Username
		overrides.AuthInfo.Password = c.Password
	}
	if c.Exec != nil {
		x := &clientcmdapi.ExecConfig{
			APIVersion:      c.Exec.APIVersion,
			Command:         c.Exec.Command,
			Args:            c.Exec.Args,
			InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		}
		keys := make([]string, 0, len(c.Exec.Env))
		for k := range c.Exec.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x.Env = append(x.Env, clientcmdapi.ExecEnvVar{Name: k, Value: c.Exec.Env[k]})
		}
		overrides.AuthInfo.Exec = x
	}

	var cfg *rest.Config
	var err error
	if len(paths) == 0 {
		// Only explicit attributes: build from an empty kubeconfig.
		cfg, err = clientcmd.NewDefaultClientConfig(*clientcmdapi.NewConfig(), overrides).ClientConfig()
	} else {
		cfg, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client configuration: %w", err)
	}
	cfg.QPS = c.QPS
	cfg.Burst = c.Burst
	if c.UserAgent != "" {
		cfg.UserAgent = c.UserAgent
	}
	return cfg, nil
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
