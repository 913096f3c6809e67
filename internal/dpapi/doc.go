// Package dpapi holds what the provider and the local control plane both know
// about DP's API objects (dp-reference §1): resource names, labels and
// annotations, the ApplicationPackageVersion naming rule, and how an
// AvailableClusterResource reads as a grant catalog. It has no client: the
// names are fixed, so neither side needs discovery or OpenAPI downloads.
package dpapi
