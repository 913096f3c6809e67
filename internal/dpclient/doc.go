// Package dpclient is the provider's Kubernetes I/O for Deckhouse Platform
// objects, on client-go only: the connection configuration, the per-provider
// cache of cluster reads, the namespace reads that answer refreshes, and the
// server-side apply, wait and delete of Applications.
//
// It imports nothing from Terraform: the framework adapter in
// internal/provider turns its results and errors into diagnostics.
package dpclient
