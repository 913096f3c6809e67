package provider

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"
)

// The network mirror tests install the provider as a team does from its own
// release: the archives of a release (goreleaser's zips and SHA256SUMS) laid
// out by tools/netmirror in the provider network mirror protocol layout,
// served over HTTPS, named by a network_mirror block of the CLI
// configuration (no dev_overrides), and pinned by a committed lock file.
//
// The release is DECKHOUSE_TEST_RELEASE_DIST when set (the dist/ folder of
// `make release`, as .ci/run sets it: the archives goreleaser built and
// signed), else one packed here from the provider binary the tests run, with
// goreleaser's names. Either way the archives are built from this tree, so
// no lock file committed earlier can hold their hashes: the committed lock
// file (testdata/netmirror/terraform.lock.hcl.tmpl) gets the hashes the
// mirror's <version>.json publishes, and `init -lockfile=readonly` must
// accept it as it is.

const providerArchiveName = "terraform-provider-deckhouse"

// releaseDist returns a folder holding a release's zips and SHA256SUMS.
func releaseDist(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("DECKHOUSE_TEST_RELEASE_DIST"); d != "" {
		return d
	}
	dist := t.TempDir()
	packRelease(t, dist, "0.1.0", providerBinary(t, false), "")
	return dist
}

// packRelease writes the zips of platforms (default: this machine's) and
// SHA256SUMS into dist as goreleaser names them; extra, when set, is added
// to the binary so that the archives are another build's.
func packRelease(t *testing.T, dist, version, binary, extra string, platforms ...string) {
	t.Helper()
	body, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	body = append(body, extra...)
	if len(platforms) == 0 {
		platforms = []string{runtime.GOOS + "_" + runtime.GOARCH}
	}
	var sums strings.Builder
	for _, platform := range platforms {
		zipName := fmt.Sprintf("%s_%s_%s.zip", providerArchiveName, version, platform)
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		h := &zip.FileHeader{Name: providerArchiveName + "_v" + version, Method: zip.Deflate, Modified: time.Unix(0, 0).UTC()}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = w.Write(body)
		}
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dist, zipName), buf.String())
		sum := sha256.Sum256(buf.Bytes())
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), zipName)
	}
	writeFile(t, filepath.Join(dist, fmt.Sprintf("%s_%s_SHA256SUMS", providerArchiveName, version)), sums.String())
}

// layOutNetMirror runs tools/netmirror (what `make release` runs) on dist
// and returns the mirror folder and the release's version.
func layOutNetMirror(t *testing.T, dist string) (string, string) {
	t.Helper()
	sums, _ := filepath.Glob(filepath.Join(dist, providerArchiveName+"_*_SHA256SUMS"))
	if len(sums) != 1 {
		t.Fatalf("%s: want one SHA256SUMS file, found %v", dist, sums)
	}
	version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(sums[0]), providerArchiveName+"_"), "_SHA256SUMS")
	out := filepath.Join(t.TempDir(), "mirror")
	_, thisFile, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(thisFile), "..", ".."))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./tools/netmirror", "-dist", dist, "-out", out, "-version", version)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tools/netmirror: %v\n%s", err, b)
	}
	return out, version
}

// mirrorServer serves a mirror folder over HTTPS as a static web server
// does, and counts the archives it served per path prefix.
type mirrorServer struct {
	url      string
	certFile string
	mu       sync.Mutex
	served   []string
}

func serveMirror(t *testing.T, dir string) *mirrorServer {
	t.Helper()
	m := &mirrorServer{}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.served = append(m.served, r.URL.Path)
		m.mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	m.url = srv.URL + "/"
	m.certFile = filepath.Join(t.TempDir(), "mirror-ca.pem")
	pemBody := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	writeFile(t, m.certFile, string(pemBody))
	return m
}

// servedUnder lists the paths served under prefix.
func (m *mirrorServer) servedUnder(prefix string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, p := range m.served {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out
}

// registryHost is the hostname the CLI reads "deckhouse/deckhouse" as.
func registryHost(cli string) string {
	if cli == "terraform" {
		return "registry.terraform.io"
	}
	return "registry.opentofu.org"
}

// newMirrorCLI prepares a working folder whose CLI configuration installs
// deckhouse/deckhouse from the network mirror only, and which trusts the
// mirror's certificate (SSL_CERT_FILE, read by both CLIs).
func newMirrorCLI(t *testing.T, cliPath string, m *mirrorServer) *tofuCLI {
	t.Helper()
	dir := t.TempDir()
	rc := filepath.Join(dir, ".tofurc")
	writeFile(t, rc, `provider_installation {
  network_mirror {
    url     = "`+m.url+`"
    include = ["registry.opentofu.org/deckhouse/deckhouse", "registry.terraform.io/deckhouse/deckhouse"]
  }
  direct {
    exclude = ["registry.opentofu.org/deckhouse/deckhouse", "registry.terraform.io/deckhouse/deckhouse"]
  }
}
`)
	c := &tofuCLI{t: t, dir: dir, tofu: cliPath, logPath: filepath.Join(dir, ".tofu.log")}
	c.env = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+rc,
		"SSL_CERT_FILE="+m.certFile,
		"TF_PLUGIN_CACHE_DIR=",
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"TF_LOG_PATH="+c.logPath,
	)
	return c
}

// mirrorArchives returns the hashes the mirror's <version>.json publishes
// for host, by platform.
func mirrorArchives(t *testing.T, mirror, host, version string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mirror, host, "deckhouse", "deckhouse", version+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Archives map[string]struct {
			Hashes []string `json:"hashes"`
		} `json:"archives"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for platform, a := range doc.Archives {
		out[platform] = a.Hashes
	}
	return out
}

// mirrorHashes returns every hash the mirror's <version>.json publishes for
// host, sorted as the CLIs write them in a lock file.
func mirrorHashes(t *testing.T, mirror, host, version string) []string {
	t.Helper()
	var out []string
	for _, hashes := range mirrorArchives(t, mirror, host, version) {
		out = append(out, hashes...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if !slices.ContainsFunc(out, func(h string) bool { return strings.HasPrefix(h, "zh:") }) {
		t.Fatalf("%s %s.json publishes no zh: hash: %v", host, version, out)
	}
	return out
}

// writeLockFile writes the committed lock file with the given hashes.
func writeLockFile(t *testing.T, c *tofuCLI, host, version string, hashes []string) {
	t.Helper()
	tmpl := template.Must(template.ParseFiles(filepath.Join("testdata", "netmirror", "terraform.lock.hcl.tmpl")))
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]any{"Host": host, "Version": version, "Hashes": hashes}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(c.dir, ".terraform.lock.hcl"), b.String())
}

// requireProvider requires the provider as a team's configuration does.
const requireProvider = `terraform {
  required_providers {
    deckhouse = {
      source  = "deckhouse/deckhouse"
      version = "~> 0.1"
    }
  }
}
`

// mirrorConfig is requireProvider and one Application of e.
func mirrorConfig(e *appEnv) string {
	return requireProvider + e.config(`  settings = { replicas = 2 }`)
}

// TestAccNetMirror_InitWithReadonlyLockFileInstallsFromHTTPSMirror: through
// each CLI, `init -lockfile=readonly` with the committed lock file installs
// the release's archive from the network mirror over HTTPS, leaves the lock
// file as it was, and `plan` then runs the installed provider against the
// cluster.
func TestAccNetMirror_InitWithReadonlyLockFileInstallsFromHTTPSMirror(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the CLIs and the local control plane (TF_ACC=1)")
	}
	mirror, version := layOutNetMirror(t, releaseDist(t))
	srv := serveMirror(t, mirror)
	for name, cliPath := range clis(t) {
		t.Run(name, func(t *testing.T) {
			e := newAccEnv(t)
			host := registryHost(name)
			c := newMirrorCLI(t, cliPath, srv)
			writeFile(t, filepath.Join(c.dir, "main.tf"), mirrorConfig(e))
			writeLockFile(t, c, host, version, mirrorHashes(t, mirror, host, version))
			lock := c.file(".terraform.lock.hcl")

			c.must("init", "-input=false", "-no-color", "-lockfile=readonly")
			if got := c.file(".terraform.lock.hcl"); got != lock {
				t.Fatalf("init -lockfile=readonly changed the lock file:\n%s", got)
			}
			platform := runtime.GOOS + "_" + runtime.GOARCH
			installed := filepath.Join(c.dir, ".terraform", "providers", host, "deckhouse", "deckhouse", version, platform)
			if _, err := os.Stat(installed); err != nil {
				t.Fatalf("the provider is not installed from the mirror: %v", err)
			}
			zips := srv.servedUnder("/" + host + "/deckhouse/deckhouse/")
			if !slices.ContainsFunc(zips, func(p string) bool { return strings.HasSuffix(p, "_"+platform+".zip") }) {
				t.Fatalf("the mirror served no %s archive under %s: %v", platform, host, zips)
			}

			res := c.run(nil, "plan", "-detailed-exitcode")
			if res.Code != 2 || !outputHas(res, "1 to add") {
				t.Fatalf("plan: exit %d, want 2 with one Application to add:\n%s", res.Code, res.Output())
			}
		})
	}
}

// TestAccNetMirror_ReadonlyLockFileRefusesAnotherBuild: a lock file that
// recorded another build of the same version (another builder's archive)
// makes `init -lockfile=readonly` fail on each CLI: the hashes the mirror
// publishes are checked, not trusted.
func TestAccNetMirror_ReadonlyLockFileRefusesAnotherBuild(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the CLIs and the local control plane (TF_ACC=1)")
	}
	mirror, version := layOutNetMirror(t, releaseDist(t))
	other := t.TempDir()
	packRelease(t, other, version, providerBinary(t, false), "another build")
	otherMirror, _ := layOutNetMirror(t, other)
	srv := serveMirror(t, mirror)
	for name, cliPath := range clis(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			host := registryHost(name)
			c := newMirrorCLI(t, cliPath, srv)
			writeFile(t, filepath.Join(c.dir, "main.tf"), requireProvider)
			writeLockFile(t, c, host, version, mirrorHashes(t, otherMirror, host, version))
			res := c.run(nil, "init", "-input=false", "-no-color", "-lockfile=readonly")
			if res.Code == 0 || !outputHas(res, "doesn't match any of the checksums") {
				t.Fatalf("init with another build's hashes: exit %d, want a checksum mismatch:\n%s", res.Code, res.Output())
			}
		})
	}
}

// TestAccNetMirror_ProvidersLockRecordsEveryPlatform: the installation
// guide's way to lock several platforms, `providers lock -net-mirror=<url>
// -platform=...`, records through each CLI a hash of every platform's
// archive that the mirror publishes, and `init -lockfile=readonly` accepts
// the result on this machine.
func TestAccNetMirror_ProvidersLockRecordsEveryPlatform(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs the CLIs (TF_ACC=1)")
	}
	here := runtime.GOOS + "_" + runtime.GOARCH
	platforms := []string{here}
	for _, p := range []string{"linux_arm64", "darwin_arm64", "windows_amd64"} {
		if p != here {
			platforms = append(platforms, p)
		}
	}
	dist := t.TempDir()
	packRelease(t, dist, "0.1.0", providerBinary(t, false), "", platforms...)
	mirror, version := layOutNetMirror(t, dist)
	srv := serveMirror(t, mirror)
	for name, cliPath := range clis(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			host := registryHost(name)
			c := newMirrorCLI(t, cliPath, srv)
			writeFile(t, filepath.Join(c.dir, "main.tf"), requireProvider)
			args := []string{"providers", "lock", "-no-color", "-net-mirror=" + srv.url}
			for _, p := range platforms {
				args = append(args, "-platform="+p)
			}
			c.must(append(args, host+"/deckhouse/deckhouse")...)
			lock := c.file(".terraform.lock.hcl")
			archives := mirrorArchives(t, mirror, host, version)
			for _, p := range platforms {
				if h1 := archives[p][0]; !strings.Contains(lock, h1) {
					t.Errorf("the lock file has no hash of %s (%s):\n%s", p, h1, lock)
				}
			}
			c.must("init", "-input=false", "-no-color", "-lockfile=readonly")
			if got := c.file(".terraform.lock.hcl"); got != lock {
				t.Fatalf("init -lockfile=readonly changed the lock file:\n%s", got)
			}
		})
	}
}
