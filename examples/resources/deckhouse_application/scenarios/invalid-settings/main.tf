# Each of these settings fails the plan at the attribute path inside settings:
#   replcas = 2                        -> settings.replcas: not declared in the schema
#   replicas = "two"                   -> settings.replicas: wrong type
#   domain = "Not_A_Domain"            -> settings.domain: the x-deckhouse-ui-validation-message
#   replicas = 5, maxReplicas = 2      -> the CEL rule "replicas must not exceed maxReplicas"
resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = "v1.0.0"
  settings        = { domain = "Not_A_Domain" }
}
