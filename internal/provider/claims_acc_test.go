package provider

import (
	"fmt"
	"strings"
	"testing"
)

// Two resources of one configuration with one namespace/name: the second
// create is refused by the claim of the first, whatever the namespace
// snapshot says; one Application and one state entry.
func TestAccClaims_TwoResourcesWithOneNameRefuseTheSecond(t *testing.T) {
	f := newFaultEnv(t)
	f.cli.write(f.provider("") + f.app("first", "app", "  settings = { replicas = 2 }") + f.app("second", "app", "  settings = { replicas = 3 }"))
	res := f.cli.run(nil, "apply", "-auto-approve")
	if res.Code == 0 || !outputHas(res, "another resource of this configuration creates Application") {
		t.Fatalf("apply of two resources with one name: exit %d, want the second refused:\n%s", res.Code, res.Output())
	}
	if n := f.countApps(); n != 1 {
		t.Fatalf("%d Applications, want 1", n)
	}
	if out := f.cli.run(nil, "state", "list").Stdout; strings.Count(out, "deckhouse_application.") != 1 {
		t.Fatalf("state entries:\n%s\nwant one", out)
	}
	f.noDeletes()
}

// Replacing Applications of one namespace in one run (delete, then create of
// the same name): no create is refused as "already exists" by a namespace
// snapshot taken before its delete, and every Application is there after.
func TestAccClaims_ReplacementsInOneNamespaceAreCreatedAgain(t *testing.T) {
	f := newFaultEnv(t)
	const n = 6
	f.cli.write(f.provider("") + f.apps(n, ""))
	f.cli.must("apply", "-auto-approve")
	args := []string{"apply", "-auto-approve", "-parallelism=10"}
	for i := range n {
		args = append(args, fmt.Sprintf("-replace=deckhouse_application.many[%d]", i))
	}
	f.cli.must(args...)
	if got := f.countApps(); got != n {
		t.Fatalf("%d Applications after replacing %d, want %d", got, n, n)
	}
	f.cli.planClean()
}
