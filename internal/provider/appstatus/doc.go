// Package appstatus reads the status of a DP Application once, for the
// deckhouse_application resource and the deckhouse_application and
// deckhouse_applications data sources, so they report the same thing in
// the same way.
//
// Decisions:
//   - A field DP has not written is null; a field DP wrote as "" is "". A
//     field of the wrong type counts as absent. This is what
//     hashicorp/kubernetes does with an object's fields: absent is null.
//   - The lists (urls, conditions) are never null: no entry is an empty
//     list. Conditions are sorted by type; entries without a type are not
//     conditions and are skipped.
//   - DP's texts may quote a setting, so every string the status carries
//     except a condition's type and status (closed sets) goes through the
//     redactor the caller passes: the resource redacts the values of
//     sensitive_settings, the data sources every value of spec.settings.
//   - The effective settings of an Application are those of its current
//     spec.settings (settings + settings-schema defaults + project grant
//     defaults, DP's values sources 1–3). DP's status.lastAppliedConfiguration
//     holds them only once DP has applied the current generation
//     (ConfigurationApplied True with observedGeneration equal to
//     metadata.generation); before that it holds those of an earlier
//     generation, which the schemas call last_applied_settings.
//
// The package sits under internal/provider because it builds framework
// values and schema attributes; it reads the object with apimachinery's
// unstructured helpers and DP's verdict from dpclient, and imports no
// client-go.
package appstatus
