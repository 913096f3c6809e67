# One setting of an Application by its path. A misspelt path fails the plan,
# naming the path and the keys there, where
# try(jsondecode(...).replicas, null) would give null without a word.
terraform {
  required_providers {
    deckhouse = {
      source = "deckhouse/deckhouse"
    }
  }
}

variable "effective_settings" {
  description = "effective_settings of a deckhouse_application (a JSON string)."
  type        = string
  default     = "{\"replicas\":2,\"postgres\":{\"storageClass\":\"fast\"},\"hosts\":[{\"name\":\"shop.example.com\"}]}"
}

output "replicas" {
  value = provider::deckhouse::setting(var.effective_settings, "replicas")
}

output "storage_class" {
  value = provider::deckhouse::setting(var.effective_settings, "postgres.storageClass")
}

output "first_host" {
  value = provider::deckhouse::setting(var.effective_settings, "hosts[0].name")
}

# The third argument is the default: returned when the setting is absent, or
# when the document is null (effective_settings after an import, until the
# first apply).
output "log_level" {
  value = provider::deckhouse::setting(var.effective_settings, "logLevel", "Info")
}
