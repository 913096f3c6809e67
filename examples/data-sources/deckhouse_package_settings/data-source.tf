# DP's verdict on settings without a cluster: plan fails, at the attribute,
# on anything DP would reject; the outputs show what DP would compute.
data "deckhouse_package_settings" "demo" {
  package_path = "${path.module}/../../packages/demo-app"

  settings = {
    replicas = 2
    domain   = "demo.example.com"
    storage  = { mode = "Internal" }
  }

  # The project's AvailableClusterResource catalog: the default is injected
  # into an empty grantable field, other values must be in the list.
  project_resources = {
    storageclasses = {
      default   = "fast"
      available = ["fast", "slow"]
    }
  }
}

output "effective_settings" {
  value = data.deckhouse_package_settings.demo.effective_settings
}

output "published_settings_schema" {
  value = jsondecode(data.deckhouse_package_settings.demo.published_settings_schema)
}

# An update of an installed application: rules referencing oldSelf run,
# immutable fields are checked and settings switches are detected.
data "deckhouse_package_settings" "update" {
  package_path      = "${path.module}/../../packages/demo-app"
  settings          = { replicas = 3 }
  previous_settings = data.deckhouse_package_settings.demo.effective_settings

  project_resources = {
    storageclasses = {
      default   = "fast"
      available = ["fast", "slow"]
    }
  }
}

# An upgrade: the same update to a new package version (package_path holds
# the new version). As in DP, rules referencing oldSelf are skipped; the
# schema, the other rules, immutable fields and grants are still checked.
data "deckhouse_package_settings" "upgrade" {
  package_path      = "${path.module}/../../packages/demo-app"
  settings          = { replicas = 3 }
  previous_settings = data.deckhouse_package_settings.demo.effective_settings
  version_change    = true
}

# Values set by hooks, validated against openapi/values.yaml.
data "deckhouse_package_settings" "values" {
  package_path = "${path.module}/../../packages/demo-app"
  hook_values  = {}
}

output "values" {
  value = data.deckhouse_package_settings.values.values
}
