# Each of these settings fails the plan; the summary names the path inside settings:
#   replcas = 2                    -> Invalid settings.replcas: field not declared in the package
#                                     schema (Did you mean "replicas" (settings.replicas)?)
#   replicas = "two"               -> Invalid settings.replicas: wrong type
#   domain = "Not_A_Domain"        -> Invalid settings.domain: does not match the pattern, with the
#                                     package's x-deckhouse-ui-validation-message
#   replicas = 5, maxReplicas = 2  -> Invalid settings: rule failed, "replicas must not exceed
#                                     maxReplicas" and the rule's CEL expression
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = "v1.0.0"
  settings        = { domain = "Not_A_Domain" }
}
