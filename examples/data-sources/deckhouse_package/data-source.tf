# Describe a package folder and run the openapi rules of `d8 package verify`:
# findings of severity error fail the plan (fail_on = "error", the default).
data "deckhouse_package" "demo" {
  path = "${path.module}/../../packages/demo-app"
}

output "settings_schema_file" {
  value = data.deckhouse_package.demo.settings_schema_file
}

# The settings form: top-level fields with their order, group and advanced flag.
output "form" {
  value = [
    for f in data.deckhouse_package.demo.settings :
    "${f.name} (${f.type}) order=${coalesce(f.ui_order, -1)} group=${f.ui_group} advanced=${f.ui_advanced}"
  ]
}

# List findings without failing, for example in a CI report.
data "deckhouse_package" "report" {
  path    = "${path.module}/../../packages/demo-app"
  fail_on = "never"
}

output "verify_findings" {
  value = data.deckhouse_package.report.verify
}
