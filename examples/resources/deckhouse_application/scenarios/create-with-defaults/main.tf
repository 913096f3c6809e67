# Create: the plan shows effective_settings with the schema defaults and the
# project's grant defaults (storageClass from AvailableClusterResource/storageclasses).
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
  settings        = { replicas = 2 }
}

output "effective" {
  value = jsondecode(deckhouse_application.app.effective_settings)
}
