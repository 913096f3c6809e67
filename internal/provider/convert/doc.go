// Package convert converts between terraform-plugin-framework values and the
// JSON data model of internal/jsonvalue (map[string]any, []any, string, bool,
// nil, int64, float64), keeping unknown parts visible, and between a model
// struct of framework values and its Terraform object (Object).
package convert
