terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

# Inside a pod (a CI runner, Atlantis, tofu-controller): with no kubeconfig
# and no host in the block or in KUBE_CONFIG_PATH(S)/KUBE_HOST, the provider
# reads the kubeconfig files KUBECONFIG names; only when KUBECONFIG is unset too
# does it use the pod's service account token and CA and
# KUBERNETES_SERVICE_HOST/PORT. Leave KUBECONFIG unset in the runner image.
# Grant the service account the rules of examples/provider/rbac.yaml.
provider "deckhouse" {
  plan_checks = "required" # a CI plan fails when it could not check the settings
}
