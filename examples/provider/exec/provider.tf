terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

# Obtain a token from a client-go credential plugin, as the `exec` section of
# a kubeconfig does. Here Azure's kubelogin signs in as a service principal;
# the client secret travels in exec.env, which the provider treats as
# sensitive. Any plugin that prints an ExecCredential works the same way.
variable "api_server" {
  type    = string
  default = "https://api.example.com:6443"
}

variable "cluster_ca_certificate" {
  description = "PEM root certificate of the API server."
  type        = string
}

variable "tenant_id" {
  type = string
}

variable "server_id" {
  description = "Application ID of the API server's Entra ID (Azure AD) application."
  type        = string
}

variable "client_id" {
  description = "Application ID of the service principal the provider signs in as."
  type        = string
}

variable "client_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

provider "deckhouse" {
  host                   = var.api_server
  cluster_ca_certificate = var.cluster_ca_certificate

  exec {
    api_version = "client.authentication.k8s.io/v1beta1"
    command     = "kubelogin"
    args = [
      "get-token",
      "--login", "spn",
      "--environment", "AzurePublicCloud",
      "--tenant-id", var.tenant_id,
      "--server-id", var.server_id,
      "--client-id", var.client_id,
    ]
    env = {
      AAD_SERVICE_PRINCIPAL_CLIENT_SECRET = var.client_secret
    }
  }
}
