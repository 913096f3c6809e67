# Fifty Applications over three package versions: one plan reads each
# package version once.
locals {
  versions = ["v1.0.0", "v1.1.0", "v1.2.0"]
}

resource "deckhouse_application" "many" {
  count           = 50
  name            = "app-${count.index}"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = local.versions[count.index % 3]
  settings        = { replicas = 1 }
}
