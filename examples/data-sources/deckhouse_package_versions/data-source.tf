# The versions of a package in one repository, oldest first.
data "deckhouse_package_versions" "demo" {
  package_name = "demo-app"
  repository   = "main"
}

output "demo_versions" {
  value = [for v in data.deckhouse_package_versions.demo.versions : v.version if v.ready]
}

# Releases only (no pre-release part such as -rc.1): the last one is the newest.
locals {
  demo_releases = [
    for v in data.deckhouse_package_versions.demo.versions : v.version if v.ready && !strcontains(v.version, "-")
  ]
}

output "demo_newest_release" {
  value = try(local.demo_releases[length(local.demo_releases) - 1], null)
}

# Follow the newest installable version, pre-releases included (null when there is none yet).
resource "deckhouse_application" "demo" {
  name                    = "demo"
  namespace               = "team-payments"
  package_name            = "demo-app"
  package_repository_name = data.deckhouse_package_versions.demo.newest.repository
  package_version         = data.deckhouse_package_versions.demo.newest.version

  settings = {
    replicas = 2
  }

  lifecycle {
    precondition {
      condition     = data.deckhouse_package_versions.demo.newest != null
      error_message = "No installable version of demo-app in repository main."
    }
  }
}
