# A CEL rule using oldSelf ("self >= oldSelf": size can only grow) is checked
# on update against the last applied settings; shrinking size fails the plan.
terraform {
  required_version = ">= 1.11"
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}

resource "deckhouse_application" "app" {
  name            = "app"
  namespace       = "team-a"
  package_name    = "demo"
  package_version = "v1.0.0"
  settings        = { size = 10 }
}
