# Adopt an existing Application; `tofu plan` then shows any difference.
import {
  to = deckhouse_application.app
  id = "team-a/app"
}

resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = "v1.0.0"
  settings        = { replicas = 2 }
}
