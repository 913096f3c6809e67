// Package protocol is the provider's protocol server: what speaks the plugin
// protocol below terraform-plugin-framework, in front of the framework's
// server, for the resource types it is given. Each piece emulates an answer
// of the framework or of the CLIs, and a test pins it:
//
//   - The shortcuts answer the calls that dominate a plan over many resources
//     without the framework's value conversions, which it repeats several
//     times per resource and call, often to return a value unchanged:
//     ValidateResourceConfig (validate.go), ReadResource of an unchanged
//     resource (read.go), PlanResourceChange of an unchanged and of a new
//     resource (plan.go), UpgradeResourceState of a current state
//     (upgrade.go). Each answers as the framework's pipeline would; what they
//     copy of it is in framework.go, each behaviour pinned by
//     TestFrameworkBehaviour_<Name>. A shortcut hands a call to the framework
//     (on any doubt) only before it has run a resource method that may act;
//     once it has, it answers with what the method gave, so that no method
//     runs twice for one call
//     (TestShortcuts_RunEachResourceMethodOnceAndAnswerAsTheFramework). Check
//     says what keeps a schema out of their reach; EnvVar turns them off.
//   - Destroy plans (destroy.go): the PlanDestroy capability is not
//     announced, so the CLIs plan a destroy themselves, keeping the prior
//     private state as the framework's plan did; its apply gets the prior
//     state's identity, as that plan held
//     (TestFrameworkBehaviour_DestroyPlanIsPriorPrivateAndIdentity,
//     TestServer_DestroyPlannedByTheCLIKeepsThePriorIdentity).
//   - The framework's list RPCs are served beside the rest: the plugin server
//     serves them only from a server that implements them all
//     (TestServer_AnnouncesNoDestroyPlansAndServesLists).
//
// It knows no resource type: it uses the framework's interfaces,
// UnchangedPlanner and UnchangedReader. Each shortcut answer is a TRACE line.
package protocol
