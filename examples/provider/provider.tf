terraform {
  # sensitive_settings of deckhouse_application is write-only: Terraform or
  # OpenTofu 1.11 or later.
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

# Connect with a kubeconfig file and one of its contexts (without
# config_context, the kubeconfig's current context is used).
provider "deckhouse" {
  config_path    = "~/.kube/config"
  config_context = "admin@production"
}
