// Package functions holds the provider-defined functions effective_settings
// and validate_settings: the engine's defaults and findings on a settings
// document, offline, with no cluster.
package functions
