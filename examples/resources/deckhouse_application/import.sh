# An Application is imported by "<namespace>/<name>".
tofu import deckhouse_application.shop team-payments/shop
