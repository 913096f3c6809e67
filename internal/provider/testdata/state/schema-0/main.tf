# The configuration the tree of commit 8322cdd (resource schema version 0,
# before the first release) applied to write this fixture's state; the
# state-upgrade tests plan it again with the current provider.
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
