// Package localdp runs a local Deckhouse Platform (DP) control plane for
// tests, the demo, the scale benchmark and anyone trying the provider: a real
// etcd and kube-apiserver (started with controller-runtime's envtest from the
// binaries that tools/bootstrap.sh builds), the DP package CRDs, an admin
// kubeconfig, and a stand-in for DP's Application controller.
//
// # CRDs
//
// The definitions in crds/ are written for this project from the documented
// shape of the DP API: Application (namespaced, short name app),
// ApplicationPackageVersion (cluster, short name apv), ApplicationPackage and
// PackageRepository (cluster), all deckhouse.io/v1alpha1, and
// AvailableClusterResource (multitenancy.deckhouse.io/v1alpha1, namespaced).
// Every kind has a status subresource. The Application CRD also rejects names
// longer than 24 characters, as DP's admission webhook does.
//
// # The stand-in controller
//
// Every request it makes goes through the real API server (client-go dynamic
// client, User-Agent ControllerUserAgent). It watches Applications in all
// namespaces and ApplicationPackageVersions, and mirrors what DP's controller
// does when it applies settings:
//
//   - it adds the finalizer packages.deckhouse.io/application and the labels
//     packages.deckhouse.io/package and packages.deckhouse.io/instance on
//     first sight, and removes the finalizer once the Application is being
//     deleted, so deletions are observable and waiting for them is real;
//   - for every generation not yet applied (the ConfigurationApplied
//     condition's observedGeneration differs from metadata.generation) it
//     reads the ApplicationPackageVersion <repo>-<package>-<version>: when it
//     is missing or its metadata is not loaded the condition is
//     ConfigurationApplied=False/Pending, when it is a draft
//     ConfigurationApplied=False/RequirementsUnmet, and the Application is
//     reconsidered when the version changes;
//   - it compiles the published schemas (status.packageSchemas) with
//     internal/engine, reads AvailableClusterResource/<name> in the
//     Application's namespace for every x-deckhouse-grantable-resource name
//     (from an informer's cache, as a controller-runtime client would; a GET
//     when the cache does not hold it yet; a missing object means no
//     catalog), and evaluates spec.settings
//     as DP does at apply time: as an update against
//     status.lastAppliedConfiguration once status.currentVersion is set
//     (oldSelf rules, skipped when spec.packageVersion is not the installed
//     version, as DP skips them; immutable fields, enum switches, acknowledged by the
//     annotation applications.deckhouse.io/allow-destructive-settings-switch
//     = "true");
//   - accepted: status.currentVersion, status.lastAppliedConfiguration (the
//     effective settings), summary.state Ready, and the conditions Installed,
//     Ready and ConfigurationApplied True with reason equal to the type;
//     rejected: ConfigurationApplied=False, reason SettingsInvalid, message
//     "validate settings: <path>: <message>; ...", summary.state Failed.
//
// Hold and Release make it leave the Applications of one namespace alone
// for a while, as a DP that lags behind, so that a test can hold a verdict
// back or write one of its own.
//
// Every condition it writes carries the Application's metadata.generation as
// observedGeneration, and every summary it writes replaces the previous one.
//
// # Simulated: installation, readiness and URLs
//
// Nothing is installed and no workload runs, so Installed, Ready,
// summary.tip and status.urls are simulated, with these rules:
//
//   - applied: Installed=True/Installed and Ready=True/Ready at once, summary
//     {state: Ready} with no message or tip;
//   - not applied (ConfigurationApplied=False with reason Pending,
//     RequirementsUnmet or SettingsInvalid) while nothing was ever applied
//     (no status.currentVersion): Installed=False and Ready=False with the
//     same reason and message; once a configuration was applied, Installed
//     and Ready are left as they are, since that configuration stays in
//     effect. summary.state is Pending (Pending, RequirementsUnmet) or Failed
//     (SettingsInvalid), summary.message the condition's message, and
//     summary.tip one sentence saying what to change;
//   - the annotation localdp.deckhouse.io/simulate-ready-after (a Go
//     duration such as "5s", or "never") holds Ready back after an apply:
//     Ready=False/Pending and summary.state Updating until the delay after
//     the apply has passed, then Ready=True/Ready and summary.state Ready;
//     with "never", Ready stays False. This lets a test tell waiting for
//     Ready from waiting for ConfigurationApplied. DP has no such annotation;
//   - status.urls: when the effective settings hold a non-empty string in
//     the top-level field domain, host or hostname (the first of these), one
//     entry {url: "https://<value>", description: "simulated by the local
//     control plane from settings.<field>"}; otherwise none. Real packages
//     publish their own URLs.
//
// # Simulated: orphan deletion
//
// When an Application is deleted, before its finalizer is removed, the
// controller does what DP does after uninstalling the release (nothing is
// installed here, so only this last step is simulated): it lists the
// objects of the kinds the package declares in orphanResources (the
// default of that values key, see engine.Package.OrphanResources) in the
// Application's namespace labelled packages.deckhouse.io/instance=<name>,
// and deletes them (background propagation, UID precondition). Cluster-
// scoped kinds, kinds the API server does not serve, and objects annotated
// werf.io/ownership: anyone or with a keep or skip-delete resource policy
// (werf.io/resource-policy, else helm.sh/resource-policy) are left. A
// failure is retried and holds the finalizer, as DP's removal waits on it.
//
// What it does not do: there is no admission webhook (invalid settings are
// accepted by the API server and rejected by the controller, as DP does at
// apply time), no package download, no hooks (so no hook values and no
// settings-check hook), no manifests or workloads, no package requirements,
// no release channels, no conditions other than the three above (no
// UpdateInstalled, Scaled or Managed), and no status.usedBy on package
// versions.
//
// # Seeding
//
// SeedPackageVersion publishes a package folder's schemas with the engine
// (as DP publishes them when it scans a repository), creating the
// PackageRepository, ApplicationPackage and ApplicationPackageVersion;
// SeedAvailableClusterResource grants cluster resources to a namespace;
// Seed does both from a Config read by LoadConfig.
//
// # Restarting kube-apiserver
//
// StopAPIServer, StartAPIServer and RestartAPIServer stop the kube-apiserver
// process and run it again with the command line envtest gave it (same
// port, serving certificate, client CA, service-account keys and etcd),
// while etcd and the stand-in controller keep running, so the admin
// kubeconfig and every client built from it work again unchanged. Stopping
// sends SIGTERM and, after a grace (APIServerStopGrace for a restart),
// SIGKILL: kube-apiserver stops listening at once but holds its graceful
// shutdown for up to a minute while clients keep watches open. Linux only.
//
// The CLI in cmd/deckhouse-local runs the same control plane in the
// foreground for the demo and for manual use.
package localdp
