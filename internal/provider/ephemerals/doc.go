// Package ephemerals holds the provider's ephemeral resources: values the
// CLI (Terraform 1.10 or later, OpenTofu 1.11 or later) opens during each
// plan and apply and stores in no state or plan file.
//
// Decisions:
//   - ephemeral "deckhouse_application" is the deckhouse_application data
//     source opened as an ephemeral resource: its schema is the data
//     source's, converted attribute by attribute (same names, types,
//     sensitivity, descriptions and validators), and Open runs the data
//     source's own Configure and Read. The two cannot drift apart: an
//     attribute the data source gains is read by the ephemeral resource,
//     and DP's texts in its status are redacted of every value of
//     spec.settings as the data source redacts them.
//   - settings, effective_settings and last_applied_settings stay
//     sensitive: ephemeral keeps them out of files, sensitive keeps them out
//     of the CLI's output.
//   - An Application is read, not leased: there is nothing to renew or to
//     close, so the resource has neither Renew nor Close.
package ephemerals
