terraform {
  required_version = ">= 1.11" # write-only sensitive_settings
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

resource "deckhouse_application" "shop" {
  name            = "shop"
  namespace       = "team-payments"
  package_name    = "demo-app"
  package_version = "v1.0.0"
  # package_repository_name may be omitted when one repository offers the package.
  package_repository_name = "main"

  settings = {
    replicas = 2
    domain   = "shop.example.com"
  }

  # Write-only: merged into spec.settings at apply, never stored in plan or state.
  sensitive_settings = {
    auth = { adminPassword = var.shop_admin_password }
  }
  sensitive_settings_version = "1"

  labels = { team = "payments" }

  # Wait until the application is Ready, not only until DP applied the settings.
  wait_for = "Ready"

  timeouts {
    create = "20m"
    update = "20m"
    delete = "10m"
  }
}

variable "shop_admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

# effective_settings is a JSON document. It is null after an import until the
# first apply, and jsondecode does not accept null: try gives null then.
output "shop_effective_settings" {
  value = try(jsondecode(deckhouse_application.shop.effective_settings), null)
}

# One setting: provider::deckhouse::setting fails naming a misspelt path. Its
# optional third argument is returned when the setting is absent or the
# document null (after an import, until the first apply).
output "shop_replicas" {
  value = provider::deckhouse::setting(deckhouse_application.shop.effective_settings, "replicas", null)
}

output "shop_urls" {
  value = deckhouse_application.shop.status.urls
}
