# Staging: one replica, verbose logs, data in the cluster on the project's
# default storage class.
module "demo_app" {
  source = "../../demo-app"

  namespace       = "staging"
  package_version = "v1.0.0"
  domain          = "demo.staging.example.com"
  log_level       = "Debug"
  pod_labels = {
    environment = "staging"
  }
}

output "effective_settings" {
  value = module.demo_app.effective_settings
}
