package dpapi

import "testing"

// TestTerminal_ConfigurationValidationFailedIsTerminalLikeSettingsInvalid:
// older DP releases name a rejection of the settings
// ConfigurationValidationFailed; it ends a wait as SettingsInvalid does,
// while faults DP retries do not.
func TestTerminal_ConfigurationValidationFailedIsTerminalLikeSettingsInvalid(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		ReasonSettingsInvalid: true, ReasonConfigurationValidationFailed: true, ReasonRequirementsUnmet: true,
		ReasonHookFailed: true, ReasonHookInitializationFailed: true,
		"DownloadFailed": false, "LoadFromFilesystemFailed": false, "ConversionWebhooksApplyFailed": false,
		"ManifestsApplyFailed": false, "ApplyingManifests": false, "Pending": false, "Deleting": false,
	}
	for reason, want := range cases {
		if got := Terminal(reason); got != want {
			t.Errorf("Terminal(%s) = %v, want %v", reason, got, want)
		}
	}
}
