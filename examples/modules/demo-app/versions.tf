terraform {
  required_version = ">= 1.6"
  required_providers {
    deckhouse = {
      source = "deckhouse/deckhouse"
    }
  }
}
