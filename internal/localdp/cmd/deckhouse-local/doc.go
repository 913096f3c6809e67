// Command deckhouse-local runs a local Deckhouse Platform control plane
// (etcd, kube-apiserver, the DP CRDs and a stand-in DP controller) for trying
// the provider and for the demo.
//
//	deckhouse-local start --dir <dir> [--config seed.yaml] [--audit-log path] [--bin-dir dir] [-v]
//	deckhouse-local stop --dir <dir>
//	deckhouse-local status --dir <dir>
//
// start runs in the foreground until SIGINT or SIGTERM. It writes
// <dir>/kubeconfig, and <dir>/pid once the control plane is ready and seeded.
package main
