# Update: changing settings, package_version or labels updates the Application in place.
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
  package_version = "v1.1.0"
  settings        = { replicas = 3 }
  labels          = { team = "payments" }
}
