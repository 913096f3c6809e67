# Effective settings over a published settings schema (JSON or YAML):
# the settings with the schema defaults applied. The call fails when DP
# would reject the settings.
terraform {
  required_providers {
    deckhouse = {
      source = "deckhouse/deckhouse"
    }
  }
}

output "effective_settings" {
  value = provider::deckhouse::effective_settings(
    file("${path.module}/../../packages/demo-app/openapi/settings.yaml"),
    { replicas = 2, domain = "demo.example.com" },
  )
}
