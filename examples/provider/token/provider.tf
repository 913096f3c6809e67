terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

# Authenticate with a bearer token, for example a ServiceAccount token in a
# CI pipeline. Prefer the KUBE_HOST, KUBE_TOKEN and KUBE_CLUSTER_CA_CERT_DATA
# environment variables so the token never lands in the configuration.
variable "api_server" {
  type = string
}

variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "cluster_ca_certificate" {
  type = string
}

provider "deckhouse" {
  host                   = var.api_server
  token                  = var.token
  cluster_ca_certificate = var.cluster_ca_certificate

  # The provider limits its own request rate; raise it for very large states.
  qps   = 50
  burst = 100
}
