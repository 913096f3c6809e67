package dpclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient/outage"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/flowcontrol"
)

// DefaultReadTimeout bounds each read request at plan and refresh.
const DefaultReadTimeout = 60 * time.Second

// Options of a Client.
type Options struct {
	// ReadTimeout bounds every request on its own: each read (GET, LIST),
	// each attempt of a write, and each watch request of the shared watches
	// (which are opened again from where they were: a wait ends with the
	// operation's deadline). A request that runs it out with no answer trips
	// the client's verdict (UnreachableError). Zero means
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// Log receives one line per notable event of a long operation (a
	// condition that changed during a wait, a retried request). Nil discards.
	Log func(ctx context.Context, msg string, fields map[string]any)
}

// Client is the Kubernetes I/O of one configured provider: every resource
// and data source of that provider shares it, so each cluster object is read
// once per command (see the read methods) and refresh reads of one namespace
// share a LIST.
type Client struct {
	cfg     *rest.Config // nil when built from interfaces
	dyn     dynamic.Interface
	meta    metadata.Interface
	mapper  meta.RESTMapper // resolves referent kinds; discovery only on first use
	opts    Options
	group   singleflight.Group
	mu      sync.Mutex
	entries map[string]any
	reads   map[string]int
	apps    *applicationReads
	creates *applicationReads // existence checks of creates
	outage  *outage.Judge     // the verdict on the API server
	claims  *claims           // the namespace/names this process creates
	hub     *watchHub         // the shared watches of the waits
	raw     rest.Interface    // for the DELETE whose answer says whether the object is gone; nil when built from interfaces
}

// New builds a client from a REST configuration without contacting the API
// server.
//
// Every request of the client goes through its verdict on the API server
// (see UnreachableError): once a request has ended at its deadline with no
// answer, or the server cannot be reached, later requests fail at once.
func New(cfg *rest.Config, opts Options) (*Client, error) {
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	o := outage.New(cfg.Host, opts.ReadTimeout, func(err error) error { return &ConfigError{Err: err} })
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(o.Guard)
	dynCfg := rest.CopyConfig(cfg)
	if dynCfg.RateLimiter == nil && dynCfg.QPS > 0 {
		// The DELETEs of the raw client share the dynamic client's rate.
		dynCfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(dynCfg.QPS, dynCfg.Burst)
	}
	dyn, err := dynamic.NewForConfig(dynCfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	raw, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(dynCfg))
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes metadata client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes discovery client: %w", err)
	}
	c := NewForInterfaces(dyn, md, opts)
	c.cfg = rest.CopyConfig(cfg)
	c.outage = o
	c.raw = raw
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return c, nil
}

// NewForInterfaces builds a client from existing clients (md may be nil:
// referents are then read in full through dyn, and their resource name is
// guessed from the kind).
func NewForInterfaces(dyn dynamic.Interface, md metadata.Interface, opts Options) *Client {
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	c := &Client{dyn: dyn, meta: md, opts: opts, entries: map[string]any{}, reads: map[string]int{},
		apps: newApplicationReads(appSource{dyn: dyn}, opts.ReadTimeout), creates: newApplicationReads(appSource{dyn: dyn, meta: md}, opts.ReadTimeout),
		outage: outage.New("", opts.ReadTimeout, nil), claims: newClaims()}
	c.hub = newWatchHub(hubClient{c})
	return c
}

// Dynamic returns the dynamic client.
func (c *Client) Dynamic() dynamic.Interface { return c.dyn }

// RESTConfig returns a copy of the configuration the client was built from
// (nil for a client built from interfaces).
func (c *Client) RESTConfig() *rest.Config {
	if c.cfg == nil {
		return nil
	}
	return rest.CopyConfig(c.cfg)
}

func (c *Client) log(ctx context.Context, msg string, fields map[string]any) {
	if c.opts.Log != nil {
		c.opts.Log(ctx, msg, fields)
	}
}

// readCtx bounds one read request by the read timeout.
func (c *Client) readCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.opts.ReadTimeout)
}

// cached returns the cached value of key or computes it once with fetch.
// Concurrent callers of one key share one request. A value is kept for the
// life of the client; an error for snapshotMaxAge, as long as a namespace
// snapshot answers reads: callers in that window get the same error without
// a request of their own.
func (c *Client) cached(ctx context.Context, key string, fetch func(context.Context) (any, error)) (any, error) {
	if v, err, ok := c.lookup(key); ok {
		return v, err
	}
	v, err, _ := c.group.Do(key, func() (any, error) {
		if v, err, ok := c.lookup(key); ok {
			return v, err
		}
		c.mu.Lock()
		c.reads[key]++
		c.mu.Unlock()
		rctx, cancel := c.readCtx(ctx)
		defer cancel()
		v, err := fetch(rctx)
		if err != nil {
			if ctx.Err() == nil { // not the caller's own cancellation
				c.mu.Lock()
				c.entries[key] = failedRead{err: err, at: time.Now()}
				c.mu.Unlock()
			}
			return nil, err
		}
		c.mu.Lock()
		c.entries[key] = v
		c.mu.Unlock()
		return v, nil
	})
	return v, c.outage.ShareVerdict(err)
}

// failedRead is a cached error.
type failedRead struct {
	err error
	at  time.Time
}

// lookup returns the cached value or error of key.
func (c *Client) lookup(key string) (any, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.entries[key]
	if !ok {
		return nil, nil, false
	}
	if f, failed := v.(failedRead); failed {
		if time.Since(f.at) < snapshotMaxAge {
			return nil, outage.NotSentNow(f.err), true
		}
		delete(c.entries, key)
		return nil, nil, false
	}
	return v, nil, true
}
