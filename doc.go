// Command terraform-provider-deckhouse serves the Deckhouse Platform
// provider: the protocol server of internal/provider, under the version it
// was built as (-debug for a debugger), with the plugin SDK's logs and its
// own off unless asked for, and CPU and heap profiles on request
// (DECKHOUSE_PROVIDER_CPUPROFILE, DECKHOUSE_PROVIDER_MEMPROFILE).
package main
