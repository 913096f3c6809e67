// Package dpfake is an httptest API server of DP for unit tests: it serves
// Applications (GET, LIST, server-side apply with managedFields,
// merge patches, JSON patches of test and remove operations, DELETE with
// finalizers and preconditions, WATCH from a resourceVersion),
// ApplicationPackages, ApplicationPackageVersions and
// AvailableClusterResources, records every request, and lets a test hold or
// answer any request itself. Only tests import it.
package dpfake
