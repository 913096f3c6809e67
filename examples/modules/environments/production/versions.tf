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
