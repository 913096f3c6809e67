package provider

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
)

// TestAccSecrets_NeverLeaveTheProcess gives a unique marker only through an
// ephemeral variable into sensitive_settings and drives one Application
// through create, update, a failing format check, a failing grant check, a
// rejection by DP at apply, import then plan, and destroy, with TF_LOG=trace.
// After every step the marker (and its base64 forms) must appear in none of:
// the output of every command, the log file, any file of the working folder
// (saved plans also unzipped), `show -json` of every saved plan and of the
// state, and the Application in the cluster outside spec.settings and DP's
// copy of the applied settings (status.lastAppliedConfiguration).
func TestAccSecrets_NeverLeaveTheProcess(t *testing.T) {
	marker := "SECRET-" + randomHex(t, 12)
	e := newAccEnv(t, withCLI("", "TF_VAR_secret="+marker))
	c := e.cli
	s := &secretScan{t: t, c: c, e: e, needles: secretNeedles(marker)}
	if !s.holds([]byte("x" + base64.StdEncoding.EncodeToString([]byte("ab"+marker+"cd")))) {
		t.Fatal("the scanner does not find the marker's base64 form")
	}

	cfg := func(version string, replicas int, sensitive, sensitiveVersion string) string {
		return `variable "secret" {
  type      = string
  ephemeral = true
}

` + e.providerBlock() + fmt.Sprintf(`
resource "deckhouse_application" "test" {
  name                       = "app"
  namespace                  = %q
  package_name               = %q
  package_version            = %q
  settings                   = { replicas = %d }
  sensitive_settings         = %s
  sensitive_settings_version = %q
}
`, e.namespace, e.pkg, version, replicas, sensitive, sensitiveVersion)
	}
	const password = `{ auth = { password = var.secret } }`

	// 1. Create.
	c.write(cfg("v1.0.0", 1, password, "1"))
	s.ok("apply", "-auto-approve")
	obj := s.application()
	if got, _, _ := unstructured.NestedString(obj.Object, "spec", "settings", "auth", "password"); got != marker {
		t.Fatalf("create: spec.settings.auth.password is not the secret")
	}
	for _, f := range []string{".tofu.log", "terraform.tfstate"} {
		if c.file(f) == "" {
			t.Fatalf("create: %s is empty or missing", f)
		}
	}
	s.scan("create")

	// 2. Update a plain setting, through a saved plan.
	c.write(cfg("v1.0.0", 2, password, "1"))
	s.ok("plan", "-out=update.tfplan")
	s.ok("apply", "update.tfplan")
	if got, _, _ := unstructured.NestedInt64(s.application().Object, "spec", "settings", "replicas"); got != 2 {
		t.Fatalf("update: spec.settings.replicas = %d, want 2", got)
	}
	s.scan("update")

	// 3. A format check fails on a value given through sensitive_settings.
	publishSchema(e, "v1.1.0", "demo-settings-url.yaml")
	c.write(cfg("v1.1.0", 2, `{
    auth = { password = var.secret }
    url  = "${var.secret} not a uri"
  }`, "1"))
	res := s.fails("plan")
	s.expect("format check", res, "sensitive_settings.url", "uri")
	s.scan("format check")

	// 4. A grant check fails on a value given through sensitive_settings
	// (storageClass is immutable: plan only). A change of sensitive_settings
	// is planned only with a new sensitive_settings_version.
	c.write(cfg("v1.0.0", 2, `{
    auth         = { password = var.secret }
    storageClass = var.secret
  }`, "2"))
	res = s.fails("plan")
	s.expect("grant check", res, "sensitive_settings.storageClass")
	if !strings.Contains(res.Output(), "storageclasses") && !strings.Contains(res.Output(), "not available") {
		t.Fatalf("grant check: the error does not name the grant:\n%s", res.Output())
	}
	s.scan("grant check")

	// 5. DP rejects at apply. The plan cannot know the old value of a
	// setting written from sensitive_settings (it is in neither plan nor
	// state), so changing the immutable auth.password passes the plan, and
	// DP's controller rejects it (ConfigurationApplied=False SettingsInvalid).
	// Tightening the published schema between plan and apply does not do:
	// applying a saved plan plans again, and that plan would fail first.
	c.write(cfg("v1.0.0", 2, `{ auth = { password = "${var.secret}-rotated" } }`, "2"))
	s.ok("plan", "-out=reject.tfplan")
	res = s.fails("apply", "reject.tfplan")
	s.expect("DP rejection", res, "DP rejected the settings", "SettingsInvalid")
	if got, _, _ := unstructured.NestedString(s.application().Object, "spec", "settings", "auth", "password"); got != marker+"-rotated" {
		t.Fatalf("DP rejection: spec.settings.auth.password is not the rotated secret")
	}
	if res := s.run("plan", "-detailed-exitcode"); res.Code != 2 {
		t.Fatalf("DP rejection: the next plan exited %d, want 2 (changes):\n%s", res.Code, res.Output())
	}
	s.scan("DP rejection")

	// 6. Import, then plan, with the configuration still giving the secret.
	c.write(cfg("v1.0.0", 2, password, "1"))
	s.ok("state", "rm", appAddr)
	s.ok("import", appAddr, e.namespace+"/app")
	s.ok("plan", "-out=import.tfplan")
	s.scan("import then plan")

	// 7. Destroy.
	s.ok("destroy", "-auto-approve")
	if _, err := e.get("app"); !apierrors.IsNotFound(err) {
		t.Fatalf("destroy: Application still readable (err %v)", err)
	}
	s.scan("destroy")
	if s.plans < 3 || s.states < 4 {
		t.Fatalf("scanned %d saved plans and %d states, want at least 3 and 4", s.plans, s.states)
	}
}

// publishSchema publishes version of the test's package with a settings
// schema of testdata/app.
func publishSchema(e *appEnv, version, file string) {
	e.t.Helper()
	schema, err := os.ReadFile(filepath.Join("testdata", "app", file))
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.cp.SeedPackageVersion(context.Background(), localdp.PackageVersionSeed{
		Repository: e.repository, Package: e.pkg, Version: version, SettingsSchema: schema,
	}); err != nil {
		e.t.Fatal(err)
	}
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// secretNeedles returns the marker, its URL-encoded forms, and the parts of
// its base64 forms (std and URL alphabets, at each of the three byte
// offsets) that do not depend on the bytes around it.
func secretNeedles(marker string) [][]byte {
	needles := append([][]byte{[]byte(marker)}, encodedNeedles(marker)...)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := 0; k < 3; k++ {
			s := enc.EncodeToString(append(make([]byte, k), marker...))
			start, end := (k+2)/3*4, (k+len(marker))/3*4
			if end-start >= 8 {
				needles = append(needles, []byte(s[start:end]))
			}
		}
	}
	return needles
}

// encodedNeedles are the forms of a secret the scan also looks for:
// URL-encoded (query and path escaping, upper and lower case hex).
func encodedNeedles(secret string) [][]byte {
	var out [][]byte
	for _, e := range []string{url.QueryEscape(secret), url.PathEscape(secret)} {
		if e != secret {
			out = append(out, []byte(e), []byte(strings.ToLower(e)))
		}
	}
	return out
}

// secretScan runs the CLI for the secret-scan test and looks for the
// marker in everything the runs leave.
type secretScan struct {
	t       *testing.T
	c       *tofuCLI
	e       *appEnv
	needles [][]byte
	plans   int // saved plans scanned through show -json
	states  int // states scanned through show -json
	// skipClusterStatus leaves the Application's status (where a test put
	// DP messages quoting the secret) and managedFields (where server-side
	// apply records the keys of spec.settings, map keys of
	// sensitive_settings included) out of the cluster scan.
	skipClusterStatus bool
	// keyNeedles are looked for everywhere but the CLI's log file: with
	// TF_LOG=trace, terraform-plugin-framework's own trace lines name the
	// attribute paths inside sensitive_settings, map keys included.
	keyNeedles [][]byte
}

func (s *secretScan) holds(b []byte) bool {
	return s.holdsValue(b) || containsAny(b, s.keyNeedles)
}

// holdsValue looks for the needles of secret values only.
func (s *secretScan) holdsValue(b []byte) bool { return containsAny(b, s.needles) }

func containsAny(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// run runs tofu with the options before the arguments (tofuCLI.run appends
// them, which a command with arguments does not accept), and checks its
// output for the marker.
func (s *secretScan) run(args ...string) tofuResult {
	s.t.Helper()
	full := []string{"-chdir=" + s.c.dir, args[0]}
	switch args[0] {
	case "plan", "apply", "destroy", "import":
		full = append(full, "-no-color", "-input=false")
	case "show":
		full = append(full, "-no-color")
	}
	full = append(full, args[1:]...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.c.tofu, full...)
	cmd.Env = s.c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := tofuResult{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		res.Code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("tofu %s: %v", strings.Join(args, " "), err)
	}
	if s.holds([]byte(res.Stdout)) || s.holds([]byte(res.Stderr)) {
		s.t.Fatalf("tofu %s printed the secret:\n%s", strings.Join(args, " "), res.Output())
	}
	return res
}

func (s *secretScan) ok(args ...string) tofuResult {
	s.t.Helper()
	res := s.run(args...)
	if res.Code != 0 {
		s.t.Fatalf("tofu %s exited %d:\n%s", strings.Join(args, " "), res.Code, res.Output())
	}
	return res
}

func (s *secretScan) fails(args ...string) tofuResult {
	s.t.Helper()
	res := s.run(args...)
	if res.Code == 0 {
		s.t.Fatalf("tofu %s succeeded, want a failure:\n%s", strings.Join(args, " "), res.Output())
	}
	return res
}

// expect fails unless the output of a failed run holds every text.
func (s *secretScan) expect(step string, res tofuResult, texts ...string) {
	s.t.Helper()
	for _, text := range texts {
		if !strings.Contains(res.Output(), text) {
			s.t.Fatalf("%s: the output does not say %q:\n%s", step, text, res.Output())
		}
	}
}

// application reads the test's Application from the cluster.
func (s *secretScan) application() *unstructured.Unstructured {
	s.t.Helper()
	obj, err := s.e.get("app")
	if err != nil {
		s.t.Fatal(err)
	}
	return obj
}

var eventGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// scan looks for the marker in every file of the working folder (saved
// plans also entry by entry), in show -json of every saved plan and of the
// state, and in the Application and the events of its namespace.
func (s *secretScan) scan(step string) {
	s.t.Helper()
	var plans []string
	err := filepath.WalkDir(s.c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".plugins" {
			return filepath.SkipDir // the provider binary
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.c.dir, p)
		if (rel == filepath.Base(s.c.logPath) && s.holdsValue(b)) || (rel != filepath.Base(s.c.logPath) && s.holds(b)) {
			return fmt.Errorf("%s holds the secret", rel)
		}
		if strings.HasSuffix(rel, ".tfplan") {
			plans = append(plans, rel)
			return s.scanZip(rel, b)
		}
		return nil
	})
	if err != nil {
		s.t.Fatalf("%s: %v", step, err)
	}
	for _, p := range plans {
		res := s.ok("show", "-json", p)
		if !json.Valid([]byte(res.Stdout)) || !strings.Contains(res.Stdout, "resource_changes") {
			s.t.Fatalf("%s: show -json %s is not a plan:\n%s", step, p, res.Output())
		}
		s.plans++
	}
	if s.c.file("terraform.tfstate") != "" {
		res := s.ok("show", "-json")
		if !json.Valid([]byte(res.Stdout)) {
			s.t.Fatalf("%s: show -json is not JSON:\n%s", step, res.Output())
		}
		s.states++
	}

	ctx := context.Background()
	obj, err := s.e.get("app")
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		s.t.Fatal(err)
	default:
		// spec.settings holds the secret by design, and DP keeps a copy of
		// the settings it applied in status.lastAppliedConfiguration.
		unstructured.RemoveNestedField(obj.Object, "spec", "settings")
		unstructured.RemoveNestedField(obj.Object, "status", "lastAppliedConfiguration")
		if s.skipClusterStatus {
			unstructured.RemoveNestedField(obj.Object, "status")
			unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
		}
		b, err := json.Marshal(obj.Object)
		if err != nil {
			s.t.Fatal(err)
		}
		if len(obj.GetManagedFields()) == 0 && !s.skipClusterStatus {
			s.t.Fatalf("%s: the Application has no managedFields", step)
		}
		if s.holds(b) {
			s.t.Fatalf("%s: the Application outside spec.settings holds the secret:\n%s", step, b)
		}
	}
	events, err := s.e.cp.Dynamic().Resource(eventGVR).Namespace(s.e.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	for _, ev := range events.Items {
		if b, _ := json.Marshal(ev.Object); s.holds(b) {
			s.t.Fatalf("%s: an event of the namespace holds the secret", step)
		}
	}
}

// scanZip looks for the marker in every entry of a saved plan.
func (s *secretScan) scanZip(name string, b []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", name, f.Name, err)
		}
		entry, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", name, f.Name, err)
		}
		if s.holds(entry) {
			return fmt.Errorf("%s: entry %s holds the secret", name, f.Name)
		}
	}
	if len(zr.File) == 0 {
		return fmt.Errorf("%s: no entries", name)
	}
	return nil
}
