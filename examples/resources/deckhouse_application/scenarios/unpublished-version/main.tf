# A version not published yet: the plan warns and leaves effective_settings
# unknown; the checks run at apply (which fails clearly if it is still missing).
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

data "deckhouse_application_package_version" "next" {
  repository = "main"
  package    = "demo"
  version    = "v2.0.0"
}

resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = data.deckhouse_application_package_version.next.version
}

output "next_ready" {
  value = data.deckhouse_application_package_version.next.ready
}
