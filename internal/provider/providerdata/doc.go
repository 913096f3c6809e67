// Package providerdata holds what the provider's Configure hands to its
// resources and data sources: the connection configuration, the provider-wide
// settings of plans and applies, and the one cluster client they share.
package providerdata
