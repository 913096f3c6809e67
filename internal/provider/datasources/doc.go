// Package datasources holds the provider's data sources: the offline ones
// (deckhouse_package, deckhouse_package_settings), which need no cluster, and
// the cluster ones, which read through the provider's dpclient.Client.
package datasources
