# storageClass is bound to the grantable resource "storageclasses": left out,
# the project default is injected; a value the project is not granted fails the plan.
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

data "deckhouse_available_cluster_resource" "storage" {
  namespace = "team-a"
  name      = "storageclasses"
}

resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = "v1.0.0"
  settings        = { storageClass = data.deckhouse_available_cluster_resource.storage.default }
}
