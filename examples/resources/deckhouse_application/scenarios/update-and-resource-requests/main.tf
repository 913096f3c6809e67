# How DP updates the application (spec.update) and per-workload replicas and
# container resources (spec.resourceRequests). Leave either out to keep DP's
# own fallback: the global applications.update setting, and the package's
# values.
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

resource "deckhouse_application" "shop" {
  name            = "shop"
  namespace       = "team-payments"
  package_name    = "demo-app"
  package_version = "v1.0.0"
  settings        = { replicas = 2 }

  update = {
    mode = "Manual" # AutoPatch (DP's default), Auto or Manual
    # Updates install only inside these windows (UTC).
    windows = [
      { from = "22:00", to = "23:30", days = ["Mon", "Tue", "Wed", "Thu"] },
      { from = "8:00", to = "12:00", days = ["Sat"] },
    ]
    # Hold updates while the cluster has alerts of severity 3 or more severe.
    block_on_alerts = { enabled = true, severity = 3 }
  }

  resource_requests = [
    {
      kind     = "Deployment"
      name     = "shop-web"
      replicas = 3 # only for Deployment, StatefulSet and ReplicaSet
      containers = [{
        name = "web"
        resources = {
          requests = { cpu = "250m", memory = "256Mi" }
          limits   = { memory = "512Mi" }
        }
      }]
    },
    {
      kind = "DaemonSet"
      name = "shop-log-agent"
      containers = [{
        name      = "agent"
        resources = { limits = { memory = "128Mi" } }
      }]
    },
  ]
}
