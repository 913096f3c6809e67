import {
  to = deckhouse_application.imported
  id = "team-payments/shop"
}

resource "deckhouse_application" "imported" {
  name            = "shop"
  namespace       = "team-payments"
  package_name    = "demo-app"
  package_version = "v1.0.0"
  settings        = { replicas = 2 }
}
