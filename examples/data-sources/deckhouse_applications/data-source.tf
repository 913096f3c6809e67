# Every Application of a namespace.
data "deckhouse_applications" "team" {
  namespace = "team-payments"
}

output "not_ready" {
  value = [for a in data.deckhouse_applications.team.items : a.name if a.ready != "True"]
}

# Only the Applications of one package.
data "deckhouse_applications" "postgres" {
  namespace    = "team-payments"
  package_name = "postgres"
}

output "postgres_versions" {
  value = { for a in data.deckhouse_applications.postgres.items : a.name => a.package_version }
}

# Every namespace (needs the list right cluster-wide): the Applications of a package, wherever they are.
data "deckhouse_applications" "every_postgres" {
  package_name = "postgres"
}

output "postgres_everywhere" {
  value = [for a in data.deckhouse_applications.every_postgres.items : "${a.namespace}/${a.name}"]
}
