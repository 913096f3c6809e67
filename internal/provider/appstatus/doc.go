// Package appstatus reads the status of a DP Application once, for the
// deckhouse_application resource and the deckhouse_application and
// deckhouse_applications data sources, so they report the same thing in
// the same way; and so the fields of an Application's spec (SpecFields,
// spec.go: the one table the resource, the data sources and the ephemeral
// resource derive their schema entries and reads from), with the typed
// fields of newer DP releases (spec.update, spec.resourceRequests), their
// CRD rules as validators, their apply body and their reading.
//
// Decisions:
//   - An omitted typed spec field is not written: DP's own fallback applies.
//     Where DP's CRD fills a field in (update.mode AutoPatch,
//     update.blockOnAlerts.severity 4), the resource reads it as null unless
//     its state holds a value there, so an omitted field is no drift (also
//     after an import or a move); the data sources show the object as it is.
//   - A field DP has not written is null; a field DP wrote as "" is "". A
//     field of the wrong type counts as absent. This is what
//     hashicorp/kubernetes does with an object's fields: absent is null.
//   - The lists (urls, conditions) are never null: no entry is an empty
//     list. Conditions are sorted by type; entries without a type are not
//     conditions and are skipped.
//   - The resource's status (ResourceValue) is the data sources' without
//     conditions: its state holds DP's verdict (summary, installed version,
//     urls, ConfigurationApplied), read in every plan, not every condition
//     of every Application, which the data sources report when asked.
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
