# Production: three replicas with headroom, a pinned storage class and data in
# external storage. The admin password comes from the pipeline's secret store
# (TF_VAR_admin_password) and is sent write-only.
variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
  default   = null
}

module "demo_app" {
  source = "../../demo-app"

  namespace            = "production"
  package_version      = "v1.0.0"
  domain               = "demo.example.com"
  replicas             = 3
  max_replicas         = 6
  storage_class        = "fast-ssd"
  external_storage_url = "https://storage.example.com/demo"
  admin_password       = var.admin_password
  pod_labels = {
    environment = "production"
  }
}

output "effective_settings" {
  value = module.demo_app.effective_settings
}
