# A module as a platform team keeps it in a GitOps repository: typed inputs,
# one deckhouse_application, and only the settings each environment sets.
locals {
  storage = var.external_storage_url == null ? null : {
    mode = "External"
    url  = var.external_storage_url
  }

  # Unset inputs are left out, so the package defaults (and the project's
  # default storage class) apply, exactly as DP would apply them.
  settings = { for k, v in {
    domain       = var.domain
    replicas     = var.replicas
    maxReplicas  = var.max_replicas
    logLevel     = var.log_level
    storageClass = var.storage_class
    storage      = local.storage
    podLabels    = length(var.pod_labels) > 0 ? var.pod_labels : null
  } : k => v if v != null }
}

# With package_path, the settings are checked offline against the package
# folder before the plan reads anything from the cluster: a precondition that
# module tests (tests/*.tftest.hcl) can expect to fail, with no cluster.
data "deckhouse_package" "this" {
  count = var.package_path == null ? 0 : 1
  path  = var.package_path
}

locals {
  settings_problems = var.package_path == null ? [] : provider::deckhouse::validate_settings(
    data.deckhouse_package.this[0].published_settings_schema,
    local.settings,
  )
}

resource "deckhouse_application" "this" {
  name                    = var.name
  namespace               = var.namespace
  package_name            = "demo-app"
  package_version         = var.package_version
  package_repository_name = var.package_repository

  settings = local.settings

  sensitive_settings         = var.admin_password == null ? null : { auth = { adminPassword = var.admin_password } }
  sensitive_settings_version = var.admin_password_version

  immutable_field_change            = "error"
  allow_destructive_settings_switch = var.allow_destructive_settings_switch

  lifecycle {
    precondition {
      condition     = length(local.settings_problems) == 0
      error_message = "DP would reject the settings: ${join("; ", [for p in local.settings_problems : "${p.path}: ${p.message}"])}"
    }
  }
}
