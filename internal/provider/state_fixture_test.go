package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// The upgrade promise of the versions guide: a state written by an earlier
// release, with its Application as that release left it in the cluster, plans
// no change with the current provider. Each release whose state must keep
// working has a folder testdata/state/release-<version>/, written once by
// that release (DECKHOUSE_WRITE_STATE_FIXTURE=release-<version>, see
// TestAccStateFixture_Write) and never rewritten; a state shape that changed
// again before it was released has testdata/state/schema-<version>/, written
// by the last tree of that schema version (schema-1: commit c137979, before
// effective_settings and last_applied_settings became JSON strings):
//
//	main.tf            the configuration applied (variables: kubeconfig, namespace, package_name)
//	settings.yaml      the package's published settings schema
//	application.json   the Application as the release wrote it (its labels and annotations, not
//	                   those DP adds, and spec)
//	terraform.tfstate  the state the release wrote, normalized
//
// Normalized: the namespace, the package name, the Application's UID and
// resourceVersion (also inside the private state) and the provider's
// registry host are placeholders the test fills in; terraform_version is
// the oldest CLI the provider supports (1.11.0), which every CLI accepts.
const (
	fixtureNamespace = "__NAMESPACE__"
	fixturePackage   = "__PACKAGE__"
	fixtureUID       = "__UID__"
	fixtureRV        = "__RESOURCE_VERSION__"
	fixtureHost      = "__REGISTRY_HOST__"
)

// stateFixtures are the releases and the schema versions of before the first
// release whose states the current provider must read without a change (no
// release has been made yet: schema-0 and schema-1 are states of schema
// versions 0 and 1, which no release writes; 0.1.0 writes version 2).
var stateFixtures = []string{"schema-0", "schema-1"}

var stateFixtureSeq atomic.Int64

// fixtureEnv is one run's namespace and package for a fixture.
type fixtureEnv struct {
	t         *testing.T
	cp        *localdp.ControlPlane
	dir       string // the fixture folder
	namespace string
	pkg       string
}

func newFixtureEnv(t *testing.T, fixture string) *fixtureEnv {
	t.Helper()
	cp := testControlPlane(t)
	n := stateFixtureSeq.Add(1)
	suffix := fmt.Sprintf("%d-%d", time.Now().UnixNano()%100000, n)
	e := &fixtureEnv{t: t, cp: cp, dir: filepath.Join("testdata", "state", fixture),
		namespace: "upgrade-ns-" + suffix, pkg: "upgrade-pkg-" + suffix}
	schema, err := os.ReadFile(filepath.Join(e.dir, "settings.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := cp.EnsureNamespace(ctx, e.namespace); err != nil {
		t.Fatal(err)
	}
	if err := cp.SeedPackageVersion(ctx, localdp.PackageVersionSeed{
		Repository: "main", Package: e.pkg, Version: "v1.0.0", SettingsSchema: schema,
	}); err != nil {
		t.Fatal(err)
	}
	if err := cp.SeedAvailableClusterResource(ctx, e.namespace, "storageclasses", "fast", []string{"fast", "slow"}); err != nil {
		t.Fatal(err)
	}
	return e
}

// vars are the fixture configuration's variables, as TF_VAR_ environment.
func (e *fixtureEnv) vars() []string {
	return []string{
		"TF_VAR_kubeconfig=" + e.cp.KubeconfigPath(),
		"TF_VAR_namespace=" + e.namespace,
		"TF_VAR_package_name=" + e.pkg,
	}
}

// waitApplied waits until the stand-in controller has applied the
// Application and returns it.
func (e *fixtureEnv) waitApplied(name string) *unstructured.Unstructured {
	e.t.Helper()
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	deadline := time.Now().Add(60 * time.Second)
	for {
		cur, err := client.Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && meta.IsStatusConditionTrue(dpclient.Conditions(cur), "ConfigurationApplied") {
			return cur
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("Application %s/%s not applied within 60s (last error %v)", e.namespace, name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAccStateUpgrade_EarlierReleasesStatePlansNoChange: for each kept
// release, its Application is put in the cluster as that release wrote it
// (server-side apply by the provider's field manager), its state is put in
// the working folder, and a `plan -detailed-exitcode` of its configuration
// through each CLI, with the provider of this tree, exits 0: no change.
func TestAccStateUpgrade_EarlierReleasesStatePlansNoChange(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the CLIs and the local control plane (TF_ACC=1)")
	}
	for _, fixture := range stateFixtures {
		for name, cliPath := range clis(t) {
			t.Run(fixture+"/"+name, func(t *testing.T) {
				t.Parallel()
				c, _ := newFixtureEnv(t, fixture).workdir(name, cliPath)

				res := c.run(nil, "plan", "-detailed-exitcode")
				if res.Code != 0 || !outputHas(res, "No changes.") {
					t.Fatalf("plan of the %s state: exit %d, want 0 (no changes):\n%s", fixture, res.Code, res.Output())
				}
			})
		}
	}
}

// workdir puts the fixture's Application in the cluster as its release
// wrote it, and its configuration and state (returned) in the working
// folder of a CLI run of cliPath (the CLI named name).
func (e *fixtureEnv) workdir(name, cliPath string) (*tofuCLI, string) {
	e.t.Helper()
	app := e.seedFixtureApplication()
	c := newTofuCLI(e.t, false, e.vars()...)
	c.tofu = cliPath
	cfg, err := os.ReadFile(filepath.Join(e.dir, "main.tf"))
	if err != nil {
		e.t.Fatal(err)
	}
	writeFile(e.t, filepath.Join(c.dir, "main.tf"), string(cfg))
	state := e.fillState(registryHost(name), app)
	writeFile(e.t, filepath.Join(c.dir, "terraform.tfstate"), state)
	return c, state
}

// seedFixtureApplication creates the fixture's Application as the release
// wrote it and waits until it is applied.
func (e *fixtureEnv) seedFixtureApplication() *unstructured.Unstructured {
	e.t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.dir, "application.json"))
	if err != nil {
		e.t.Fatal(err)
	}
	body := strings.NewReplacer(fixtureNamespace, e.namespace, fixturePackage, e.pkg).Replace(string(raw))
	var obj unstructured.Unstructured
	if err := json.Unmarshal([]byte(body), &obj.Object); err != nil {
		e.t.Fatal(err)
	}
	client := e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(e.namespace)
	force := true
	if _, err := client.Patch(context.Background(), obj.GetName(), k8stypes.ApplyPatchType, []byte(body),
		metav1.PatchOptions{FieldManager: "terraform-provider-deckhouse", Force: &force}); err != nil {
		e.t.Fatal(err)
	}
	return e.waitApplied(obj.GetName())
}

// fillState returns the fixture's state with its placeholders filled in for
// this run, the private state's included.
func (e *fixtureEnv) fillState(host string, app *unstructured.Unstructured) string {
	e.t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.dir, "terraform.tfstate"))
	if err != nil {
		e.t.Fatal(err)
	}
	fill := strings.NewReplacer(fixtureNamespace, e.namespace, fixturePackage, e.pkg,
		fixtureUID, string(app.GetUID()), fixtureRV, app.GetResourceVersion(), fixtureHost, host)
	return mapPrivate(e.t, fill.Replace(string(raw)), func(_ string, v []byte) []byte { return []byte(fill.Replace(string(v))) })
}

// mapPrivate applies f to each key's value of the private state of every
// resource instance of a state file. The framework stores a private state
// as a JSON object of base64 values, itself base64 in the state file.
func mapPrivate(t *testing.T, state string, f func(key string, value []byte) []byte) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(state), &doc); err != nil {
		t.Fatal(err)
	}
	resources, _ := doc["resources"].([]any)
	for _, r := range resources {
		rm, _ := r.(map[string]any)
		instances, _ := rm["instances"].([]any)
		for _, i := range instances {
			im, _ := i.(map[string]any)
			p, _ := im["private"].(string)
			if p == "" {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(p)
			if err != nil {
				t.Fatalf("private state: %v", err)
			}
			var keys map[string][]byte
			if err := json.Unmarshal(b, &keys); err != nil {
				t.Fatalf("private state %s: %v", b, err)
			}
			for k, v := range keys {
				keys[k] = f(k, v)
			}
			if b, err = json.Marshal(keys); err != nil {
				t.Fatal(err)
			}
			im["private"] = base64.StdEncoding.EncodeToString(b)
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out) + "\n"
}

// TestAccStateFixture_Write writes the state fixture of the release this
// tree is (DECKHOUSE_WRITE_STATE_FIXTURE=release-<version>, or
// schema-<version> for an unreleased schema version) into
// testdata/state/<fixture>/, which already holds main.tf and
// settings.yaml: it applies main.tf through OpenTofu, then keeps the
// Application and the state, normalized. It refuses to overwrite a fixture:
// a kept release's state is never rewritten.
func TestAccStateFixture_Write(t *testing.T) {
	fixture := os.Getenv("DECKHOUSE_WRITE_STATE_FIXTURE")
	if fixture == "" || os.Getenv("TF_ACC") == "" {
		t.Skip("writes a state fixture: DECKHOUSE_WRITE_STATE_FIXTURE=release-<version> (or schema-<version>) and TF_ACC=1")
	}
	e := newFixtureEnv(t, fixture)
	for _, f := range []string{"application.json", "terraform.tfstate"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err == nil {
			t.Fatalf("%s/%s exists: a kept release's fixture is never rewritten", e.dir, f)
		}
	}
	c := newTofuCLI(t, false, e.vars()...)
	cfg, err := os.ReadFile(filepath.Join(e.dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(c.dir, "main.tf"), string(cfg))
	c.must("apply", "-auto-approve", "-no-color", "-input=false")
	c.planClean()

	state := c.file("terraform.tfstate")
	var doc map[string]any
	if err := json.Unmarshal([]byte(state), &doc); err != nil {
		t.Fatal(err)
	}
	resources, _ := doc["resources"].([]any)
	if len(resources) != 1 {
		t.Fatalf("the fixture configuration must manage one Application, the state has %d resources", len(resources))
	}
	var st struct {
		Resources []struct {
			Instances []struct {
				Attributes struct {
					Name string `json:"name"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(state), &st); err != nil || len(st.Resources[0].Instances) != 1 {
		t.Fatalf("the fixture configuration must manage one Application instance: %v", err)
	}
	name := st.Resources[0].Instances[0].Attributes.Name
	app := e.waitApplied(name)

	doc["terraform_version"] = "1.11.0"
	doc["serial"] = 1
	doc["lineage"] = "00000000-0000-0000-0000-000000000001"
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	normalize := strings.NewReplacer(e.namespace, fixtureNamespace, e.pkg, fixturePackage,
		string(app.GetUID()), fixtureUID, "registry.opentofu.org", fixtureHost)
	state = mapPrivate(t, normalize.Replace(string(b)), func(k string, v []byte) []byte {
		if k == "resource_version" {
			return []byte(`"` + fixtureRV + `"`)
		}
		return []byte(normalize.Replace(string(v)))
	})
	writeFile(t, filepath.Join(e.dir, "terraform.tfstate"), state)

	metadata := map[string]any{"name": app.GetName(), "namespace": app.GetNamespace()}
	// The labels DP adds (packages.deckhouse.io/*) are left to the controller.
	labels := map[string]any{}
	for k, v := range app.GetLabels() {
		if !strings.HasPrefix(k, "packages.deckhouse.io/") {
			labels[k] = v
		}
	}
	if len(labels) > 0 {
		metadata["labels"] = labels
	}
	if a := app.GetAnnotations(); len(a) > 0 {
		metadata["annotations"] = a
	}
	kept := map[string]any{"apiVersion": app.GetAPIVersion(), "kind": app.GetKind(), "metadata": metadata, "spec": app.Object["spec"]}
	b, err = json.MarshalIndent(kept, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.dir, "application.json"), normalize.Replace(string(b))+"\n")
	t.Logf("wrote %s/terraform.tfstate and %s/application.json", e.dir, e.dir)
}
