# An Application managed elsewhere (another configuration, kubectl, the DP console).
data "deckhouse_application" "keycloak" {
  namespace = "team-payments"
  name      = "keycloak"
}

output "keycloak_version" {
  value = data.deckhouse_application.keycloak.status.installed_version
}

output "keycloak_urls" {
  value = [for u in data.deckhouse_application.keycloak.status.urls : u.url]
}

# One condition by type: "True", "False", "Unknown", or null when DP has not set it.
output "keycloak_ready" {
  value = one([
    for c in data.deckhouse_application.keycloak.status.conditions : c.status if c.type == "Ready"
  ])
}

# settings, effective_settings and last_applied_settings are sensitive: they may
# hold secrets. Take out a value that is not one with nonsensitive().
# last_applied_settings is what DP applied last; effective_settings is null
# while DP has not applied the current settings.
output "keycloak_replicas" {
  value = nonsensitive(data.deckhouse_application.keycloak.last_applied_settings.replicas)
}
