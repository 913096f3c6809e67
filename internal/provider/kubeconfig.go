package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// Values of the plan_checks argument.
const (
	// PlanChecksBestEffort defers a check the plan cannot make with a warning.
	PlanChecksBestEffort = "best_effort"
	// PlanChecksRequired makes every check the plan cannot make an error.
	PlanChecksRequired = "required"
)

// ProviderData is what Configure hands to resources and data sources. It is
// safe for concurrent use.
type ProviderData struct {
	// FieldManager is the server-side apply field manager name.
	FieldManager string
	// ForceConflicts forces server-side apply over other managers' fields.
	ForceConflicts bool
	// PlanChecks is PlanChecksBestEffort or PlanChecksRequired: whether a
	// check the plan cannot make (cluster unreachable, no configuration,
	// RBAC, package version missing or not loaded, unknown values) is a
	// warning or an error.
	PlanChecks string
	// RequestTimeout is the deadline of each read request at plan and
	// refresh; watches are not bounded by it.
	RequestTimeout time.Duration

	conn    dpclient.Config
	unknown bool

	mu     sync.Mutex
	built  bool
	client *dpclient.Client
	err    error
}

// errConfigUnknown is returned when the configuration depends on values
// unknown until apply.
var errConfigUnknown = errors.New("the deckhouse provider configuration depends on values that are not known yet " +
	"(for example attributes of resources created in the same apply), so the cluster cannot be reached now")

// noClusterHint completes dpclient.ErrNoCluster with the provider's own
// settings.
const noClusterHint = "set config_path, config_paths or host in the deckhouse provider block (or the " +
	"KUBE_CONFIG_PATH, KUBE_CONFIG_PATHS or KUBE_HOST environment variables), or run inside a Kubernetes pod " +
	"with a service account"

// ConfigUnknown reports whether part of the provider configuration was unknown
// when the provider was configured (typically during plan).
func (p *ProviderData) ConfigUnknown() bool { return p != nil && p.unknown }

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
	cfg, err := p.conn.RESTConfig()
	if errors.Is(err, dpclient.ErrNoCluster) {
		err = fmt.Errorf("%w; %s", err, noClusterHint)
	}
	if err != nil {
		p.err = err
		return err
	}
	p.client, err = dpclient.New(cfg, dpclient.Options{ReadTimeout: p.RequestTimeout, Log: logLine})
	if err != nil {
		p.err = err
		return err
	}
	return nil
}

// Client returns the cluster client shared by every resource and data source
// of this provider instance, built on first use without contacting the API
// server (no discovery).
//
// An error wrapping a *dpclient.ConfigError is a misconfiguration (and
// errors.Is(err, dpclient.ErrNoCluster) when nothing names a cluster), not an
// unreachable cluster.
func (p *ProviderData) Client(_ context.Context) (*dpclient.Client, error) {
	if err := p.build(); err != nil {
		return nil, err
	}
	return p.client, nil
}
