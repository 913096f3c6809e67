# Adopt an existing Application. Its settings stay out of the state until the
# first apply (any of them could be a secret), so the plan after the import
# shows an update that writes this configuration.
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

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
