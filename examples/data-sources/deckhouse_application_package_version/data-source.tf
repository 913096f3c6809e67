data "deckhouse_application_package_version" "demo" {
  repository = "main"
  package    = "demo-app"
  version    = "v1.0.0"
}

output "demo_settings_schema" {
  value = jsondecode(data.deckhouse_application_package_version.demo.settings_schema)
}

output "demo_ready" {
  value = data.deckhouse_application_package_version.demo.ready
}
