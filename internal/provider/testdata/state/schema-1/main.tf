# The configuration the tree at commit c137979 (resource schema version 1:
# effective_settings and last_applied_settings stored as dynamic values)
# applied to write this fixture's state; the state-upgrade tests plan it again
# with the current provider.
terraform {
  required_providers {
    deckhouse = {
      source = "deckhouse/deckhouse"
    }
  }
}

variable "kubeconfig" {
  type = string
}

variable "namespace" {
  type = string
}

variable "package_name" {
  type = string
}

provider "deckhouse" {
  config_path = var.kubeconfig
}

resource "deckhouse_application" "demo" {
  name                    = "demo"
  namespace               = var.namespace
  package_name            = var.package_name
  package_version         = "v1.0.0"
  package_repository_name = "main"

  labels = {
    team = "platform"
  }

  settings = {
    replicas = 2
    domain   = "demo.example.com"
    logLevel = "Debug"
    storage = {
      mode = "Internal"
    }
  }

  sensitive_settings = {
    auth = {
      password = "fixture-password"
    }
  }
  sensitive_settings_version = "1"
}
