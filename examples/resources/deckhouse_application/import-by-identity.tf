# Adopt an existing Application by its identity.
import {
  to = deckhouse_application.billing
  identity = {
    namespace = "team-payments"
    name      = "billing"
  }
}

resource "deckhouse_application" "billing" {
  name                    = "billing"
  namespace               = "team-payments"
  package_name            = "demo-app"
  package_version         = "v1.0.0"
  package_repository_name = "main"
  settings                = { replicas = 1 }
}
