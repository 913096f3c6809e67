# Obtain credentials from a client-go credential plugin, as a kubeconfig
# `exec` section does (for example a cloud CLI or an OIDC login helper).
variable "api_server" {
  type    = string
  default = "https://api.example.com:6443"
}

variable "cluster_ca_certificate" {
  type    = string
  default = ""
}

provider "deckhouse" {
  host                   = var.api_server
  cluster_ca_certificate = var.cluster_ca_certificate

  exec {
    api_version = "client.authentication.k8s.io/v1"
    command     = "d8"
    args        = ["k", "oidc-login", "get-token"]
    env = {
      KUBECONFIG = "/dev/null"
    }
  }
}
