output "id" {
  description = "ID of the Application (namespace/name)."
  value       = deckhouse_application.this.id
}

output "effective_settings" {
  description = "The settings DP applies: package defaults, project defaults and the module inputs merged."
  value       = deckhouse_application.this.effective_settings
}
