# Switching storage.mode from Internal to External is declared destructive by
# the package: the plan fails with the package's message until the switch is
# acknowledged, and apply then writes the annotation
# applications.deckhouse.io/allow-destructive-settings-switch: "true".
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
  name                              = "app"
  namespace                         = "team-a"
  package_name                      = "demo"
  package_version                   = "v1.0.0"
  allow_destructive_settings_switch = true
  settings = {
    storage = { mode = "External", url = "https://s3.example.com" }
  }
}
