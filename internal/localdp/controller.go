package localdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// Names DP uses on Applications and package versions.
const (
	// Finalizer the stand-in controller puts on every Application.
	Finalizer = "packages.deckhouse.io/application"
	// LabelPackage and LabelInstance are the labels DP adds to Applications.
	LabelPackage  = "packages.deckhouse.io/package"
	LabelInstance = "packages.deckhouse.io/instance"
	// LabelDraft marks a draft ApplicationPackageVersion.
	LabelDraft = dpapi.LabelDraft
	// AnnotationAllowDestructiveSwitch acknowledges a destructive enum switch.
	AnnotationAllowDestructiveSwitch = dpapi.AnnotationAllowDestructiveSwitch
)

// Condition types and reasons written by the stand-in controller.
const (
	CondInstalled            = "Installed"
	CondReady                = "Ready"
	CondConfigurationApplied = "ConfigurationApplied"
	CondMetadataLoaded       = "MetadataLoaded"

	ReasonPending           = "Pending"
	ReasonRequirementsUnmet = "RequirementsUnmet"
	ReasonSettingsInvalid   = "SettingsInvalid"
)

// Summary states written by the stand-in controller.
const (
	StatePending  = "Pending"
	StateFailed   = "Failed"
	StateUpdating = "Updating"
	StateReady    = "Ready"
)

// AnnotationSimulateReadyAfter delays Ready=True by a duration (time.ParseDuration
// syntax) after the configuration is applied, or withholds it for good with
// "never", so waiting for Ready can be told apart from waiting for
// ConfigurationApplied. Read by the stand-in controller only: DP ignores it.
const AnnotationSimulateReadyAfter = "localdp.deckhouse.io/simulate-ready-after"

// urlSettings are the top-level settings whose value, a host name, becomes
// the simulated status.urls entry https://<value>, first match wins.
var urlSettings = []string{"domain", "host", "hostname"}

// maxMessage keeps condition messages under the CRD's limit.
const maxMessage = 32000

// workers is the number of concurrent reconcilers.
const workers = 8

// controller is the stand-in for DP's Application controller.
type controller struct {
	dyn     dynamic.Interface
	disc    discovery.DiscoveryInterface // orphan kinds (deleteOrphans)
	factory dynamicinformer.DynamicSharedInformerFactory
	apps    cache.SharedIndexInformer
	apvs    cache.SharedIndexInformer
	// acrs caches the AvailableClusterResources grant checks read, as a
	// controller-runtime client reads from its informers.
	acrs  cache.SharedIndexInformer
	queue workqueue.TypedRateLimitingInterface[string]
	logf  func(string, ...any)

	// applied remembers, per Application UID, the generation whose final
	// verdict this controller wrote, so a stale cache entry does not cause a
	// second evaluation (and a conflicting status write).
	mu      sync.Mutex
	applied map[types.UID]int64
	// rawApplied holds, per Application UID, the spec.settings of the last
	// accepted apply: DP's runtime keeps the raw settings it applied and
	// binds oldSelf to them. Kept in memory only, as DP's runtime does; after
	// a restart oldSelf falls back to status.lastAppliedConfiguration.
	rawApplied map[types.UID]any
	// held lists the namespaces whose Applications the controller leaves
	// alone until they are released (ControlPlane.Hold).
	held map[string]bool

	// packages holds the compiled package of each ApplicationPackageVersion
	// by name, valid for one resourceVersion: compiling the published
	// schemas (CEL rules included) costs far more than evaluating settings.
	pkgMu    sync.Mutex
	packages map[string]compiledPackage
}

// compiledPackage is a compiled ApplicationPackageVersion or the error of
// compiling it, for one resourceVersion.
type compiledPackage struct {
	resourceVersion string
	pkg             *engine.Package
	err             error
}

func newController(cfg *rest.Config, opts Options) (*controller, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	c := &controller{
		dyn:     dyn,
		disc:    disc,
		factory: factory,
		apps:    factory.ForResource(ApplicationGVR).Informer(),
		apvs:    factory.ForResource(dpapi.ApplicationPackageVersionGVR).Informer(),
		acrs:    factory.ForResource(dpapi.AvailableClusterResourceGVR).Informer(),
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](
			5*time.Millisecond, 2*time.Second)),
		logf:       logf,
		applied:    map[types.UID]int64{},
		rawApplied: map[types.UID]any{},
		held:       map[string]bool{},
		packages:   map[string]compiledPackage{},
	}
	enqueue := func(obj any) {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err == nil {
			c.queue.Add(key)
		}
	}
	if _, err := c.apps.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	versionChanged := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if ok {
			c.enqueueUsers(u.GetName())
		}
	}
	if _, err := c.apvs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    versionChanged,
		UpdateFunc: func(_, obj any) { versionChanged(obj) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// start runs the informers and the workers until ctx is cancelled; done is
// closed when every worker has returned.
func (c *controller) start(ctx context.Context, done chan struct{}) error {
	c.factory.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), c.apps.HasSynced, c.apvs.HasSynced, c.acrs.HasSynced) {
		c.queue.ShutDown()
		c.factory.Shutdown()
		close(done)
		return errors.New("informer caches did not sync within 30s")
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.processNext(ctx) {
			}
		}()
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
		wg.Wait()
		c.factory.Shutdown()
		close(done)
	}()
	return nil
}

// hold makes the controller leave the Applications of ns alone (no
// finalizer, no labels, no verdict) until release, which queues them all.
func (c *controller) hold(ns string, on bool) {
	c.mu.Lock()
	c.held[ns] = on
	c.mu.Unlock()
	if on {
		return
	}
	for _, obj := range c.apps.GetStore().List() {
		if u, ok := obj.(*unstructured.Unstructured); ok && u.GetNamespace() == ns {
			c.queue.Add(ns + "/" + u.GetName())
		}
	}
}

// enqueueUsers queues every Application that refers to the package version apvName.
func (c *controller) enqueueUsers(apvName string) {
	for _, obj := range c.apps.GetStore().List() {
		u, ok := obj.(*unstructured.Unstructured)
		if ok && versionName(u) == apvName {
			c.queue.Add(u.GetNamespace() + "/" + u.GetName())
		}
	}
}

func (c *controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.safeReconcile(ctx, key); err != nil {
		if ctx.Err() == nil {
			if !apierrors.IsConflict(err) {
				c.logf("application %s: %v (retrying)", key, err)
			}
			c.queue.AddRateLimited(key)
		}
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *controller) safeReconcile(ctx context.Context, key string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return c.reconcile(ctx, key)
}

func (c *controller) reconcile(ctx context.Context, key string) error {
	ns, _, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil //nolint:nilerr // a malformed key can never succeed: drop it instead of retrying
	}
	c.mu.Lock()
	held := c.held[ns]
	c.mu.Unlock()
	if held {
		return nil
	}
	obj, exists, err := c.apps.GetStore().GetByKey(key)
	if err != nil || !exists {
		return err
	}
	cached, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	app := cached.DeepCopy()
	client := c.dyn.Resource(ApplicationGVR).Namespace(ns)

	if app.GetDeletionTimestamp() != nil {
		fins := app.GetFinalizers()
		if !slices.Contains(fins, Finalizer) {
			return nil
		}
		kept := slices.DeleteFunc(slices.Clone(fins), func(f string) bool { return f == Finalizer })
		if err := c.deleteOrphans(ctx, app); err != nil {
			return err // retried: DP's removal waits on the orphan deletion too
		}
		app.SetFinalizers(kept)
		c.mu.Lock()
		delete(c.applied, app.GetUID())
		delete(c.rawApplied, app.GetUID())
		c.mu.Unlock()
		_, err := client.Update(ctx, app, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err == nil {
			c.logf("application %s: finalizer removed", key)
		}
		return err
	}

	if ensureMetadata(app) {
		app, err = client.Update(ctx, app, metav1.UpdateOptions{})
		if err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
	}
	if upToDate(app) {
		return c.finishReady(ctx, key, app)
	}
	c.mu.Lock()
	gen, seen := c.applied[app.GetUID()]
	c.mu.Unlock()
	if seen && gen == app.GetGeneration() {
		return nil
	}
	status, summary := c.evaluate(ctx, app)
	app.Object["status"] = status
	updated, err := client.UpdateStatus(ctx, app, metav1.UpdateOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	if upToDate(updated) {
		c.mu.Lock()
		c.applied[updated.GetUID()] = updated.GetGeneration()
		c.mu.Unlock()
	}
	c.logf("application %s: %s", key, summary)
	return c.finishReady(ctx, key, updated)
}

// finishReady turns a Ready condition held back by
// AnnotationSimulateReadyAfter True once the delay has passed, and otherwise
// queues the Application again for that moment.
func (c *controller) finishReady(ctx context.Context, key string, app *unstructured.Unstructured) error {
	conds := readConditions(app)
	ready := meta.FindStatusCondition(conds, CondReady)
	if ready == nil || ready.Status == metav1.ConditionTrue || ready.Reason != ReasonPending ||
		ready.ObservedGeneration != app.GetGeneration() ||
		!meta.IsStatusConditionTrue(conds, CondConfigurationApplied) {
		return nil
	}
	delay, never := readyDelay(app)
	if never {
		return nil
	}
	if wait := time.Until(ready.LastTransitionTime.Add(delay)); wait > 0 {
		c.queue.AddAfter(key, wait)
		return nil
	}
	meta.SetStatusCondition(&conds, metav1.Condition{
		Type: CondReady, Status: metav1.ConditionTrue, Reason: CondReady, ObservedGeneration: app.GetGeneration(),
	})
	app = app.DeepCopy()
	_ = unstructured.SetNestedSlice(app.Object, conditionsToUnstructured(conds), "status", "conditions")
	_ = unstructured.SetNestedMap(app.Object, map[string]any{"state": StateReady}, "status", "summary")
	_, err := c.dyn.Resource(ApplicationGVR).Namespace(app.GetNamespace()).UpdateStatus(ctx, app, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		c.logf("application %s: Ready=True (simulated delay %s)", key, delay)
	}
	return err
}

// readyDelay reads AnnotationSimulateReadyAfter: the delay, or never. A
// missing or unreadable value means no delay.
func readyDelay(app *unstructured.Unstructured) (delay time.Duration, never bool) {
	v, ok := app.GetAnnotations()[AnnotationSimulateReadyAfter]
	if !ok {
		return 0, false
	}
	if strings.TrimSpace(v) == "never" {
		return 0, true
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < 0 {
		return 0, false
	}
	return d, false
}

// simulatedURLs is status.urls for the effective settings: one https URL for
// the first of urlSettings holding a non-empty string, else none.
func simulatedURLs(effective map[string]any) []any {
	for _, k := range urlSettings {
		if h, ok := effective[k].(string); ok && strings.TrimSpace(h) != "" {
			return []any{map[string]any{
				"url":         "https://" + strings.TrimSpace(h),
				"description": "simulated by the local control plane from settings." + k,
			}}
		}
	}
	return nil
}

// ensureMetadata adds the finalizer and DP's labels; it reports a change.
func ensureMetadata(app *unstructured.Unstructured) bool {
	changed := false
	if !slices.Contains(app.GetFinalizers(), Finalizer) {
		app.SetFinalizers(append(app.GetFinalizers(), Finalizer))
		changed = true
	}
	pkg, _, _ := unstructured.NestedString(app.Object, "spec", "packageName")
	lbls := app.GetLabels()
	if lbls == nil {
		lbls = map[string]string{}
	}
	if lbls[LabelPackage] != pkg || lbls[LabelInstance] != app.GetName() {
		lbls[LabelPackage] = pkg
		lbls[LabelInstance] = app.GetName()
		app.SetLabels(lbls)
		changed = true
	}
	return changed
}

// upToDate reports whether the ConfigurationApplied condition already
// describes the current generation with a final verdict.
func upToDate(app *unstructured.Unstructured) bool {
	for _, cond := range readConditions(app) {
		if cond.Type != CondConfigurationApplied {
			continue
		}
		if cond.ObservedGeneration != app.GetGeneration() {
			return false
		}
		return cond.Reason != ReasonPending && cond.Reason != ReasonRequirementsUnmet
	}
	return false
}

// versionName is the ApplicationPackageVersion name an Application refers to.
func versionName(app *unstructured.Unstructured) string {
	repo, _, _ := unstructured.NestedString(app.Object, "spec", "packageRepositoryName")
	pkg, _, _ := unstructured.NestedString(app.Object, "spec", "packageName")
	ver, _, _ := unstructured.NestedString(app.Object, "spec", "packageVersion")
	return dpapi.PackageVersionName(repo, pkg, ver)
}

// evaluate computes the new status of app and a one-line summary for the log.
func (c *controller) evaluate(ctx context.Context, app *unstructured.Unstructured) (map[string]any, string) {
	status, _, _ := unstructured.NestedMap(app.Object, "status")
	if status == nil {
		status = map[string]any{}
	}
	gen := app.GetGeneration()
	conds := readConditions(app)
	set := func(typ string, ok bool, reason, msg string) {
		st := metav1.ConditionFalse
		if ok {
			st = metav1.ConditionTrue
		}
		if len(msg) > maxMessage {
			msg = msg[:maxMessage]
		}
		meta.SetStatusCondition(&conds, metav1.Condition{
			Type: typ, Status: st, Reason: reason, Message: msg, ObservedGeneration: gen,
		})
	}
	finish := func(state, msg, tip string) map[string]any {
		status["conditions"] = conditionsToUnstructured(conds)
		summary := map[string]any{"state": state}
		if msg != "" {
			summary["message"] = msg
		}
		if tip != "" {
			summary["tip"] = tip
		}
		status["summary"] = summary
		return status
	}
	// installed: some configuration was applied before; it stays in effect
	// (Installed and Ready are left as they are) when a later one is not.
	installed, _, _ := unstructured.NestedString(status, "currentVersion", "version")
	notApplied := func(state, reason, msg, tip string) map[string]any {
		set(CondConfigurationApplied, false, reason, msg)
		if installed == "" {
			set(CondInstalled, false, reason, msg)
			set(CondReady, false, reason, msg)
		}
		return finish(state, msg, tip)
	}
	notReady := func(reason, msg, tip string) (map[string]any, string) {
		return notApplied(StatePending, reason, msg, tip), "ConfigurationApplied=False " + reason
	}

	repo, _, _ := unstructured.NestedString(app.Object, "spec", "packageRepositoryName")
	if repo == "" {
		return notReady(ReasonRequirementsUnmet, "spec.packageRepositoryName is not set",
			"Set spec.packageRepositoryName to the PackageRepository that holds the package.")
	}
	apvName := versionName(app)
	obj, exists, err := c.apvs.GetStore().GetByKey(apvName)
	if err != nil || !exists {
		return notReady(ReasonPending, fmt.Sprintf("ApplicationPackageVersion %q not found", apvName),
			"Check spec.packageVersion and spec.packageRepositoryName: the version is installed once the repository publishes it.")
	}
	apv, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return notReady(ReasonPending, fmt.Sprintf("ApplicationPackageVersion %q not readable", apvName), "")
	}
	if v, ok := apv.GetLabels()[LabelDraft]; ok && v != "false" {
		return notReady(ReasonRequirementsUnmet, fmt.Sprintf("ApplicationPackageVersion %q is a draft and cannot be installed", apvName),
			"Choose a released version in spec.packageVersion.")
	}
	if !metadataLoaded(apv) {
		return notReady(ReasonPending, fmt.Sprintf("ApplicationPackageVersion %q: metadata is not loaded yet", apvName),
			"Wait for the repository scan to load the version's metadata.")
	}
	pkg, err := c.compiled(apv)
	if err != nil {
		return notReady(ReasonRequirementsUnmet, fmt.Sprintf("ApplicationPackageVersion %q: %v", apvName, err),
			"The package version's published schemas cannot be used: choose another version.")
	}
	catalog, err := c.catalog(ctx, app.GetNamespace(), pkg)
	if err != nil {
		return notReady(ReasonPending, err.Error(), "")
	}

	settings, _, _ := unstructured.NestedFieldNoCopy(app.Object, "spec", "settings")
	req := engine.Request{
		Settings:               settings,
		Catalog:                catalog,
		AllowDestructiveSwitch: app.GetAnnotations()[AnnotationAllowDestructiveSwitch] == "true",
	}
	if installed != "" {
		prev, _, _ := unstructured.NestedFieldNoCopy(status, "lastAppliedConfiguration")
		if prev == nil {
			prev = map[string]any{}
		}
		req.Previous, req.HasPrevious = prev, true
		c.mu.Lock()
		raw, ok := c.rawApplied[app.GetUID()]
		c.mu.Unlock()
		req.PreviousRaw, req.HasPreviousRaw = raw, ok
		// DP skips the oldSelf rules when the Application changes the
		// installed version.
		version, _, _ := unstructured.NestedString(app.Object, "spec", "packageVersion")
		req.VersionChange = version != installed
	}
	res := pkg.Evaluate(req)
	if !res.OK() {
		msgs := make([]string, 0, len(res.Problems))
		for _, p := range res.Problems {
			msgs = append(msgs, p.Error())
		}
		msg := "validate settings: " + strings.Join(msgs, "; ")
		tip := "Fix spec.settings and apply again."
		if installed != "" {
			tip = "Fix spec.settings and apply again; the last applied configuration stays in effect."
		}
		return notApplied(StateFailed, ReasonSettingsInvalid, msg, tip),
			fmt.Sprintf("ConfigurationApplied=False SettingsInvalid (%d problems)", len(res.Problems))
	}

	ver, _, _ := unstructured.NestedString(app.Object, "spec", "packageVersion")
	current := map[string]any{"version": ver}
	if ch, _, _ := unstructured.NestedString(app.Object, "spec", "releaseChannel"); ch != "" {
		current["channel"] = ch
	}
	status["currentVersion"] = current
	effective := res.Effective
	if effective == nil {
		effective = map[string]any{}
	}
	status["lastAppliedConfiguration"] = toJSONValue(effective)
	c.mu.Lock()
	c.rawApplied[app.GetUID()] = toJSONValue(settings)
	c.mu.Unlock()
	if urls := simulatedURLs(effective); urls != nil {
		status["urls"] = toJSONValue(urls)
	} else {
		delete(status, "urls")
	}
	set(CondInstalled, true, CondInstalled, "")
	set(CondConfigurationApplied, true, CondConfigurationApplied, "")
	if delay, never := readyDelay(app); never || delay > 0 {
		// A fresh lastTransitionTime starts the delay (finishReady).
		meta.RemoveStatusCondition(&conds, CondReady)
		msg := "waiting for the application's workloads (simulated: " + AnnotationSimulateReadyAfter + "=" +
			app.GetAnnotations()[AnnotationSimulateReadyAfter] + ")"
		set(CondReady, false, ReasonPending, msg)
		return finish(StateUpdating, msg, ""), "ConfigurationApplied=True, Ready=False (simulated delay)"
	}
	set(CondReady, true, CondReady, "")
	return finish(StateReady, "", ""), "ConfigurationApplied=True"
}

// compiled returns the compiled package of apv, compiling it once per
// resourceVersion.
func (c *controller) compiled(apv *unstructured.Unstructured) (*engine.Package, error) {
	name, rv := apv.GetName(), apv.GetResourceVersion()
	c.pkgMu.Lock()
	cp, ok := c.packages[name]
	c.pkgMu.Unlock()
	if ok && cp.resourceVersion == rv {
		return cp.pkg, cp.err
	}
	cp = compiledPackage{resourceVersion: rv}
	settingsSchema, valuesSchema, err := publishedSchemas(apv)
	if err != nil {
		cp.err = err
	} else if cp.pkg, err = engine.LoadPublished(settingsSchema, valuesSchema); err != nil {
		cp.err = fmt.Errorf("load published schemas: %w", err)
	}
	c.pkgMu.Lock()
	c.packages[name] = cp
	c.pkgMu.Unlock()
	return cp.pkg, cp.err
}

// catalog reads AvailableClusterResource/<name> in ns for every grantable
// field of pkg, from the informer's cache, else (an object created a moment
// ago) from the API server. A missing object means no catalog for that name.
func (c *controller) catalog(ctx context.Context, ns string, pkg *engine.Package) (engine.Catalog, error) {
	names := map[string]bool{}
	for _, f := range pkg.Fields() {
		if f.GrantableResource != "" {
			names[f.GrantableResource] = true
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	out := engine.Catalog{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if obj, exists, err := c.acrs.GetStore().GetByKey(ns + "/" + name); err == nil && exists {
			if acr, ok := obj.(*unstructured.Unstructured); ok {
				out[name] = dpapi.Catalog(acr)
				continue
			}
		}
		acr, err := c.dyn.Resource(dpapi.AvailableClusterResourceGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("get AvailableClusterResource %s/%s: %w", ns, name, err)
		}
		out[name] = dpapi.Catalog(acr)
	}
	return out, nil
}

func metadataLoaded(apv *unstructured.Unstructured) bool {
	items, _, _ := unstructured.NestedSlice(apv.Object, "status", "conditions")
	for _, it := range items {
		m, ok := it.(map[string]any)
		if ok && m["type"] == CondMetadataLoaded {
			return m["status"] == string(metav1.ConditionTrue)
		}
	}
	return false
}

// publishedSchemas returns the JSON of the published settings and values schemas.
func publishedSchemas(apv *unstructured.Unstructured) (settings, values []byte, err error) {
	s, ok, _ := unstructured.NestedFieldNoCopy(apv.Object, "status", "packageSchemas", "settingsSchema", "openAPIV3Schema")
	if !ok || s == nil {
		return nil, nil, errors.New("status.packageSchemas.settingsSchema.openAPIV3Schema is not published")
	}
	if settings, err = json.Marshal(s); err != nil {
		return nil, nil, err
	}
	if v, ok, _ := unstructured.NestedFieldNoCopy(apv.Object, "status", "packageSchemas", "valuesSchema", "openAPIV3Schema"); ok && v != nil {
		if values, err = json.Marshal(v); err != nil {
			return nil, nil, err
		}
	}
	return settings, values, nil
}

func readConditions(obj *unstructured.Unstructured) []metav1.Condition {
	items, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "conditions")
	if !ok || items == nil {
		return nil
	}
	data, err := json.Marshal(items)
	if err != nil {
		return nil
	}
	var out []metav1.Condition
	if json.Unmarshal(data, &out) != nil {
		return nil
	}
	return out
}

func conditionsToUnstructured(conds []metav1.Condition) []any {
	data, err := json.Marshal(conds)
	if err != nil {
		return nil
	}
	var out []any
	_ = json.Unmarshal(data, &out)
	return out
}

// toJSONValue round-trips v through JSON so it holds only types the
// unstructured machinery can deep-copy (int64, float64, string, ...).
func toJSONValue(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if utiljson.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}
