# Quickstart: one Deckhouse Platform application.
#
# `make demo` applies this configuration to a local DP control plane (see the
# getting-started guide). Against a real cluster, set kubeconfig (or the
# KUBE_CONFIG_PATH environment variable) and the package coordinates.

terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

variable "kubeconfig" {
  description = "Path to the kubeconfig of the cluster. Null: the KUBE_CONFIG_PATH environment variable."
  type        = string
  default     = null
}

provider "deckhouse" {
  config_path = var.kubeconfig
}

resource "deckhouse_application" "demo" {
  name                    = "demo"
  namespace               = "demo"
  package_name            = "demo-app"
  package_version         = "v1.0.0"
  package_repository_name = "demo"

  # Only what differs from the package defaults. The plan shows the effective
  # settings DP will apply: package defaults, the project's default storage
  # class and these values, merged.
  settings = {
    replicas = 2
    domain   = "demo.example.com"
    podLabels = {
      team = "platform"
    }
  }
}

output "effective_settings" {
  description = "The settings DP applies: defaults, project defaults and the user settings merged."
  # The resource holds them as a JSON document: jsondecode gives the object.
  value = jsondecode(deckhouse_application.demo.effective_settings)
}
