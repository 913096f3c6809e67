# Connect with a kubeconfig file and one of its contexts (without
# config_context, the kubeconfig's current context is used).
provider "deckhouse" {
  config_path    = "~/.kube/config"
  config_context = "admin@production"
}
