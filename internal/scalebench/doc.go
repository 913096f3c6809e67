// Command scalebench measures the provider at scale: it starts the local DP
// control plane with an audit log, seeds P package versions and a grant
// catalog per namespace, and for each N runs plan (create), apply (which
// waits for ConfigurationApplied), plan (refresh, no changes) and destroy on N
// deckhouse_application resources with the CLI -cli names (OpenTofu or
// Terraform), and the same phases with two floors: the same configuration
// served by a provider that does no work (internal/scalebench/noop: what the
// CLI and the plugin protocol cost), and N terraform_data resources holding
// the same settings (no provider at all); apply and destroy also against a
// third floor, the API work alone: the same PATCHes, DELETEs and waits sent
// with client-go at the same parallelism, no CLI, no provider (apifloor.go).
// It prints two markdown tables: wall time, the provider's peak RSS, the
// provider's API requests (from the kube-apiserver audit log) and the ratios
// to the floors; then the CPU of the CLI and of the provider per phase, the
// ratio to the API-work floor and the state's size per Application; then a
// verdict per scale target. With -states K it also runs K states of N/K Applications in
// parallel against the same API server and compares them with one state of N.
//
//	go run ./internal/scalebench [-cli tofu|terraform] [-n 20,100,300] [-p 10] [-ns 5] [-parallelism 10] [-states 10] [-out table.md]
package main
