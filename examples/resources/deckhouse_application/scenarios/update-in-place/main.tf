# Update: changing settings, package_version or labels updates the Application in place.
resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = "v1.1.0"
  settings        = { replicas = 3 }
  labels          = { team = "payments" }
}
