package dpapi

import "slices"

// Reasons of a False or Unknown condition of an Application (DP's
// status/rules.go) that the provider acts on: the terminal ones. A True
// condition has reason equal to its type; the other reasons are listed
// with TerminalReasons.
const (
	ReasonRequirementsUnmet             = "RequirementsUnmet"
	ReasonSettingsInvalid               = "SettingsInvalid"
	ReasonConfigurationValidationFailed = "ConfigurationValidationFailed" // older DP releases, same case as SettingsInvalid
	ReasonHookInitializationFailed      = "HookInitializationFailed"
	ReasonHookFailed                    = "HookFailed"
)

// TerminalReasons end a wait at once: DP will not get further without a
// change of the Application (its settings or version) or of the package.
//   - SettingsInvalid, and ConfigurationValidationFailed of older DP
//     releases: the settings were rejected when applied;
//   - RequirementsUnmet: the version's requirements do not hold;
//   - HookFailed, HookInitializationFailed: the package's hooks fail on
//     these settings or cannot start; DP retries them, but a retry of the
//     same package and settings fails the same way.
//
// The other failure reasons are not terminal: DownloadFailed (a registry
// or network fault), LoadFromFilesystemFailed (a download that may be
// fetched again), ConversionWebhooksApplyFailed and ManifestsApplyFailed
// (an API server or admission fault while applying; DP retries) can pass
// without a change, so the wait goes on and, at its deadline, reports the
// last reason and message. Pending, ApplyingManifests and Deleting are
// progress.
var TerminalReasons = []string{
	ReasonSettingsInvalid, ReasonConfigurationValidationFailed, ReasonRequirementsUnmet,
	ReasonHookFailed, ReasonHookInitializationFailed,
}

// Terminal reports whether a condition reason ends a wait at once.
func Terminal(reason string) bool { return slices.Contains(TerminalReasons, reason) }
