package providerdata

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

// DefaultFieldManager is the server-side apply field manager when neither
// the provider nor the resource names one.
const DefaultFieldManager = "terraform-provider-deckhouse"

// Values of the plan_checks argument.
const (
	// PlanChecksBestEffort defers a check the plan cannot make with a warning.
	PlanChecksBestEffort = "best_effort"
	// PlanChecksRequired makes every check the plan cannot make an error.
	PlanChecksRequired = "required"
)

// Values of the import_settings argument.
const (
	// ImportSettingsOmit keeps the settings of an imported Application out
	// of the state until the first apply: any of them may be a secret.
	ImportSettingsOmit = "omit"
	// ImportSettingsRead reads the settings of an imported Application into
	// the state as they are in the cluster.
	ImportSettingsRead = "read"
)

// Data is what Configure hands to resources and data sources. Its fields are
// set before it is handed over; after that it is safe for concurrent use.
type Data struct {
	// FieldManager is the server-side apply field manager name.
	FieldManager string
	// ForceConflicts forces server-side apply over other managers' fields.
	ForceConflicts bool
	// PlanChecks is PlanChecksBestEffort or PlanChecksRequired: whether a
	// check the plan cannot make (cluster unreachable, no configuration,
	// RBAC, package version missing or not loaded, unknown values) is a
	// warning or an error.
	PlanChecks string
	// ImportSettingsRead: the refresh of an Application imported and not yet
	// written by this provider reads its spec.settings into the state
	// (import_settings = "read").
	ImportSettingsRead bool
	// RequestTimeout is the deadline of each read request at plan and
	// refresh; watches are not bounded by it.
	RequestTimeout time.Duration

	// Conn is the connection configuration of the cluster client.
	Conn dpclient.Config
	// Unknown is set when part of the provider configuration was unknown
	// when the provider was configured (typically during plan).
	Unknown bool
	// Incomplete is set when any argument of the provider block was unknown
	// when the provider was configured, the connection's or another's: what
	// a client that allows deferred actions is answered with a deferral for
	// (Defers).
	Incomplete bool

	mu     sync.Mutex
	built  bool
	client *dpclient.Client
	err    error
}

// ErrConfigUnknown is returned by Client when the configuration depends on values
// unknown until apply.
var ErrConfigUnknown = errors.New("the deckhouse provider configuration depends on values that are not known yet " +
	"(for example attributes of resources created in the same apply), so the cluster cannot be reached now")

// noClusterHint completes dpclient.ErrNoCluster with the provider's own
// settings.
const noClusterHint = "set config_path, config_paths or host in the deckhouse provider block (or the " +
	"KUBE_CONFIG_PATH, KUBE_CONFIG_PATHS or KUBE_HOST environment variables), or run inside a Kubernetes pod " +
	"with a service account"

// ConfigUnknown reports whether part of the provider configuration was unknown
// when the provider was configured (typically during plan).
func (p *Data) ConfigUnknown() bool { return p != nil && p.Unknown }

// Defers reports whether a call that reads the cluster at plan answers with a
// deferral whose reason is "provider configuration unknown": the client
// allows deferred actions (allowed, the call's DeferralAllowed) and the
// provider configuration is not wholly known. Without the client's leave,
// the calls go on as they do without deferred actions.
func (p *Data) Defers(allowed bool) bool { return allowed && p != nil && p.Incomplete }

// configUnknownHint is the way out of a read at plan under an unknown
// provider configuration, for a client that does not defer.
const configUnknownHint = "A data source reads the cluster when it is planned: add depends_on = [<the resource " +
	"that creates the cluster>] to it, so that it is read during the apply, once the cluster exists and the provider " +
	"configuration is known. Terraform opens an ephemeral resource at plan even then (OpenTofu does not): make one " +
	"of its arguments refer to an output of that resource (for example namespace = <resource>.<output> == \"\" ? \"\" : \"<namespace>\"), so " +
	"that it is opened once the output is known. (The resource deckhouse_application plans and refreshes without " +
	"the cluster and needs nothing of the kind.) A client that allows deferred actions (Terraform with " +
	"-allow-deferral, HCP Terraform Stacks) defers these reads instead."

func (p *Data) build() error {
	if p == nil {
		return errors.New("the deckhouse provider is not configured")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built {
		return p.err
	}
	p.built = true
	if p.Unknown {
		p.err = ErrConfigUnknown
		return p.err
	}
	cfg, err := p.Conn.RESTConfig()
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
func (p *Data) Client(_ context.Context) (*dpclient.Client, error) {
	if err := p.build(); err != nil {
		return nil, err
	}
	return p.client, nil
}

// From is the Configure step of every cluster resource and data source: the
// provider's data, or nil before the provider is configured (the framework
// calls Configure early with no data).
func From(data any, diags *diag.Diagnostics) *Data {
	if data == nil {
		return nil
	}
	pd, ok := data.(*Data)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *providerdata.Data, got %T", data))
		return nil
	}
	return pd
}

// ClusterClient returns the provider's cluster client, or adds an error
// saying why there is none.
func ClusterClient(ctx context.Context, data *Data, diags *diag.Diagnostics) *dpclient.Client {
	if data == nil {
		diags.AddError("Provider not configured",
			"The deckhouse provider was not configured before this resource or data source was used.")
		return nil
	}
	cl, err := data.Client(ctx)
	if errors.Is(err, ErrConfigUnknown) {
		diags.AddError("Provider configuration unknown at plan", err.Error()+". "+configUnknownHint)
		return nil
	}
	if err != nil {
		diags.AddError("Cannot connect to the cluster", err.Error())
		return nil
	}
	return cl
}

// logLine sends a line of the cluster client to the provider's log (INFO:
// waits report progress at the default level of TF_LOG=INFO).
func logLine(ctx context.Context, msg string, fields map[string]any) {
	tflog.Info(ctx, msg, fields)
}
