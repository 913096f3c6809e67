data "deckhouse_available_cluster_resource" "storage" {
  namespace = "team-payments"
  name      = "storageclasses"
}

output "default_storage_class" {
  value = data.deckhouse_available_cluster_resource.storage.default
}

output "available_storage_classes" {
  value = data.deckhouse_available_cluster_resource.storage.available
}
