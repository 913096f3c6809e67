output "id" {
  description = "ID of the Application (namespace/name)."
  value       = deckhouse_application.this.id
}

output "effective_settings" {
  description = "The settings DP applies: package defaults, project defaults and the module inputs merged."
  # The resource holds them as a JSON document. try gives null where jsondecode
  # fails: null after an import until the first apply, and the generated string
  # of an override_resource in OpenTofu's module tests.
  value = try(jsondecode(deckhouse_application.this.effective_settings), null)
}

output "replicas" {
  description = "The number of replicas DP runs: the replicas input, else the package default; null until DP has applied the settings once (after an import)."
  # No default: a misspelt path fails the plan, naming the path and the keys
  # there (a default would be returned for it too).
  value = deckhouse_application.this.effective_settings == null ? null : provider::deckhouse::setting(deckhouse_application.this.effective_settings, "replicas")
}
