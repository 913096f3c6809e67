// Package fastpath answers the terraform-plugin-framework RPCs that dominate a
// plan over many resources directly, for the resource types it is given, and
// hands every other call to the framework's server.
//
// terraform-plugin-framework spends most of a plan's provider time
// converting values between the protocol and its own types, several times per
// resource and per call, often to return them unchanged. Each shortcut gives
// the answer the framework's pipeline would give. It hands a call on (every
// input it does not recognise, any doubt) only before it has run a resource
// method that may act (Configure, ModifyPlan, validators, a create or a
// delete): once it has, it answers with what the method gave, diagnostics
// included, so that no resource method runs twice for one call. Each
// behaviour of the framework that the answers copy is pinned by a test,
// TestFrameworkBehaviour_<Name>, against the framework in go.mod.
//
// The shortcuts:
//   - ValidateResourceConfig: validate;
//   - ReadResource: readUnchanged, for resources implementing
//     UnchangedReader;
//   - PlanResourceChange: planUnchanged, for resources implementing
//     UnchangedPlanner, and planCreate; a destroy's plan goes to
//     the framework (the provider does not announce the PlanDestroy
//     capability, so the CLIs make that plan themselves);
//   - UpgradeResourceState: upgradeCurrent, for a state of the
//     current schema version;
//   - ApplyResourceChange: applyCreate, for resources
//     implementing Creator, and applyDelete, for resources
//     implementing Deleter.
//
// The package knows no resource type: what a shortcut needs of one it learns
// from the framework's interfaces (Schema, IdentitySchema, Configure,
// ModifyPlan, ConfigValidators, ValidateConfig, ImportState) and from its
// own interfaces (UnchangedPlanner, UnchangedReader, Creator, Deleter).
// Each answer logs a TRACE line. EnvVar turns every shortcut off.
package fastpath
