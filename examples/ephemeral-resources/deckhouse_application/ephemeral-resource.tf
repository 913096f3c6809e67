# The database of another configuration: its settings hold the password
# (written there through that configuration's sensitive_settings).
ephemeral "deckhouse_application" "postgres" {
  namespace = "team-payments"
  name      = "postgres"
}

resource "deckhouse_application" "keycloak" {
  name            = "keycloak"
  namespace       = "team-payments"
  package_name    = "keycloak"
  package_version = "v1.2.0"

  settings = {
    database = { host = "postgres.team-payments.svc" }
  }

  # Write-only: the password goes to the cluster and into no plan or state file.
  sensitive_settings = {
    database = { password = ephemeral.deckhouse_application.postgres.settings.auth.password }
  }
  # Change it to write the password again after it was rotated.
  sensitive_settings_version = "1"
}

# An ephemeral value may be used in locals, checks, preconditions, provider
# blocks and write-only arguments, not in outputs or ordinary arguments.
check "postgres_ready" {
  assert {
    condition     = ephemeral.deckhouse_application.postgres.status.state == "Ready"
    error_message = "The postgres Application is not Ready."
  }
}
