// Package functions holds the provider-defined functions effective_settings
// and validate_settings (the engine's defaults and findings on a settings
// document, offline, with no cluster) and setting, the reader of one value
// of a settings document.
package functions
