# Module tests with no cluster: `tofu test` / `terraform test` in this folder.
# The settings are checked offline against the package folder (package_path)
# by the module's precondition, through the deckhouse_package data source and
# the validate_settings function, which the CLI runs for real. The Application
# itself is not planned by the provider (override_resource), so nothing reads
# a cluster, whatever KUBECONFIG says.

variables {
  namespace       = "team-a"
  package_version = "v1.0.0"
  package_path    = "../../packages/demo-app"
  domain          = "demo.example.com"
}

override_resource {
  target = deckhouse_application.this
  # A JSON document, as the provider sets it (the replicas output reads it
  # with provider::deckhouse::setting): a CLI that generates the value
  # itself would make a random string.
  values = {
    effective_settings = "{\"replicas\":1}"
  }
}

run "valid_settings_pass" {
  command = plan

  variables {
    replicas             = 2
    max_replicas         = 4
    external_storage_url = "https://storage.example.com/demo"
    # OpenTofu 1.12 plans an overridden resource whose write-only
    # sensitive_settings is null as an invalid plan: give it a value.
    admin_password = "correct-horse-battery"
  }

  assert {
    condition     = deckhouse_application.this.settings.replicas == 2
    error_message = "The module must pass replicas to the Application."
  }

  assert {
    condition     = deckhouse_application.this.settings.storage.mode == "External"
    error_message = "external_storage_url must switch the storage to External."
  }
}

run "replicas_above_max_replicas_fail" {
  command = plan

  variables {
    replicas     = 5
    max_replicas = 2
  }

  # The package's CEL rule: self.replicas <= self.maxReplicas.
  expect_failures = [deckhouse_application.this]
}

run "invalid_domain_fails" {
  command = plan

  variables {
    domain = "Not A Domain"
  }

  expect_failures = [deckhouse_application.this]
}
