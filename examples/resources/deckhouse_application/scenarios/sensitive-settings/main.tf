# Secrets go to sensitive_settings: validated at plan together with settings,
# deep-merged into spec.settings at apply, never stored in plan or state.
# Bump sensitive_settings_version to write new values.
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "deckhouse_application" "app" {
  name                       = "app"
  namespace                  = "team-a"
  package_name               = "demo"
  package_version            = "v1.0.0"
  settings                   = { replicas = 1 }
  sensitive_settings         = { auth = { password = var.admin_password } }
  sensitive_settings_version = "1"
}
