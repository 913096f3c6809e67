# Fifty Applications over three package versions: one plan reads each
# package version once.
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

locals {
  versions = ["v1.0.0", "v1.1.0", "v1.2.0"]
}

resource "deckhouse_application" "many" {
  count           = 50
  name            = "app-${count.index}"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = local.versions[count.index % 3]
  settings        = { replicas = 1 }
}
