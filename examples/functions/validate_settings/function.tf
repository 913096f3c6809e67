# The problems DP finds in settings, each with its path, message and kind;
# an empty list when DP accepts them.
terraform {
  required_providers {
    deckhouse = {
      source = "deckhouse/deckhouse"
    }
  }
}

locals {
  problems = provider::deckhouse::validate_settings(
    file("${path.module}/../../packages/demo-app/openapi/settings.yaml"),
    { replicas = 0, domain = "Not A Domain" },
  )
}

output "problems" {
  value = [for p in local.problems : "${p.path}: ${p.message} (${p.kind})"]
}

# Report every problem as a warning of the plan (a check block does not stop it).
check "settings" {
  assert {
    condition     = length(local.problems) == 0
    error_message = join("\n", [for p in local.problems : "${p.path}: ${p.message}"])
  }
}
