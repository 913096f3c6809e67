# Changing an x-deckhouse-immutable field fails the plan by default; with
# immutable_field_change = "replace" the plan replaces the Application instead
# and names the field that forces it.
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
  name                   = "app"
  namespace              = "team-a"
  package_name           = "demo"
  package_version        = "v1.0.0"
  immutable_field_change = "replace"
  settings               = { storageClass = "slow" }
}
