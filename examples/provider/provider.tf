# Connect with a kubeconfig file (the context defaults to the current one).
provider "deckhouse" {
  config_path    = "~/.kube/config"
  config_context = "admin@production"
}
