// Package provider is the Terraform/OpenTofu provider for Deckhouse
// Platform (DP) applications on terraform-plugin-framework: the provider
// block (its schema, the merge of its arguments with the environment, and
// Configure, which builds the one shared cluster client), the lists of
// resources, data sources, ephemeral resources and functions, and the
// protocol server that main serves (the framework's server behind the
// shortcuts of package fastpath, without the PlanDestroy capability, with the
// list resource RPCs). Only main imports it; it is the one package that
// wires the others together.
package provider
