# An Application is imported by "<namespace>/<name>" (terraform import works alike).
tofu import deckhouse_application.shop team-payments/shop
