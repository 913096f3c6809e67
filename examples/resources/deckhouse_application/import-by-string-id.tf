# Adopt the existing Application team-payments/shop into the resource above.
import {
  to = deckhouse_application.shop
  id = "team-payments/shop" # <namespace>/<name>
}
