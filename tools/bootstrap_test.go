package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The pins the tests run bootstrap.sh with, so they do not follow the
// script's defaults.
const (
	pinTofu = "v1.12.6"
	pinKube = "v1.37.2"
	pinEtcd = "v3.6.16"
)

// sandbox is a fake machine for one run of bootstrap.sh: a PATH made of stub
// binaries plus links to the few system utilities the script needs (so a
// tofu or terraform of the real machine is never found), an empty HOME and
// an empty tools cache.
type sandbox struct {
	t     *testing.T
	root  string
	path  string // stubs found on PATH
	sys   string // links to system utilities, also on PATH
	home  string
	cache string
	env   map[string]string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("bootstrap.sh needs a Unix shell")
	}
	root := t.TempDir()
	s := &sandbox{
		t: t, root: root,
		path:  filepath.Join(root, "path"),
		sys:   filepath.Join(root, "sys"),
		home:  filepath.Join(root, "home"),
		cache: filepath.Join(root, "cache"),
	}
	for _, d := range []string{s.path, s.sys, s.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range []string{"cut", "sed", "grep", "uname", "tr", "sort", "dirname", "basename", "mkdir", "ln", "mv", "rm", "cat", "readlink"} {
		p, err := exec.LookPath(u)
		if err != nil {
			t.Skipf("%s not found: %v", u, err)
		}
		if err := os.Symlink(p, filepath.Join(s.sys, u)); err != nil {
			t.Fatal(err)
		}
	}
	s.env = map[string]string{
		"PATH":                        s.path + string(os.PathListSeparator) + s.sys,
		"HOME":                        s.home,
		"DECKHOUSE_TOOLS_CACHE":       s.cache,
		"DECKHOUSE_BOOTSTRAP_DRY_RUN": "1",
		"TOFU_VERSION":                pinTofu,
		"KUBE_VERSION":                pinKube,
		"ETCD_VERSION":                pinEtcd,
	}
	return s
}

// stub writes an executable at path that prints lines, as `<tool> --version` would.
func (s *sandbox) stub(path string, lines ...string) string {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "echo '%s'\n", l)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o755); err != nil {
		s.t.Fatal(err)
	}
	return path
}

// envtestDir is setup-envtest's folder for a Kubernetes version on this machine.
func (s *sandbox) envtestDir(version string) string {
	return filepath.Join(s.home, ".local", "share", "kubebuilder-envtest", "k8s", version+"-"+runtime.GOOS+"-"+runtime.GOARCH)
}

// run runs bootstrap.sh with the sandbox's environment only.
func (s *sandbox) run(args ...string) (stdout, stderr string, err error) {
	s.t.Helper()
	bash, lerr := exec.LookPath("bash")
	if lerr != nil {
		s.t.Skip("bash not found")
	}
	script, aerr := filepath.Abs("bootstrap.sh")
	if aerr != nil {
		s.t.Fatal(aerr)
	}
	cmd := exec.Command(bash, append([]string{script}, args...)...)
	cmd.Dir = s.root
	cmd.Env = []string{}
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// decision is the dry-run line of one tool: "<action> <path or version>".
func decision(t *testing.T, stdout, tool string) string {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if rest, ok := strings.CutPrefix(l, tool+" "); ok {
			return rest
		}
	}
	t.Fatalf("no decision for %s in:\n%s", tool, stdout)
	return ""
}

// tree lists the paths under dir (empty when dir does not exist).
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return filepath.SkipDir
			}
			return err
		}
		b.WriteString(p + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestBootstrap_ChoosesEachTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(s *sandbox)
		tool  string
		want  func(s *sandbox) string
	}{
		{
			name:  "fitting tofu on PATH is reused",
			setup: func(s *sandbox) { s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.12.0", "on linux_amd64") },
			tool:  "tofu",
			want:  func(s *sandbox) string { return "reuse " + filepath.Join(s.path, "tofu") },
		},
		{
			name:  "too old tofu on PATH falls back to the build",
			setup: func(s *sandbox) { s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.10.7") },
			tool:  "tofu",
			want:  func(*sandbox) string { return "build " + pinTofu },
		},
		{
			name: "terraform on PATH when tofu is too old",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.9.1")
				s.stub(filepath.Join(s.path, "terraform"), "Terraform v1.12.2", "on linux_amd64")
			},
			tool: "tofu",
			want: func(s *sandbox) string { return "reuse " + filepath.Join(s.path, "terraform") },
		},
		{
			name:  "terraform 1.11 knows no resource identity and is not reused",
			setup: func(s *sandbox) { s.stub(filepath.Join(s.path, "terraform"), "Terraform v1.11.4", "on linux_amd64") },
			tool:  "tofu",
			want:  func(*sandbox) string { return "build " + pinTofu },
		},
		{
			name:  "opentofu 1.11 knows no resource identity and is not reused",
			setup: func(s *sandbox) { s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.11.3") },
			tool:  "tofu",
			want:  func(*sandbox) string { return "build " + pinTofu },
		},
		{
			name:  "terraform 1.10 lacks write-only attributes",
			setup: func(s *sandbox) { s.stub(filepath.Join(s.path, "terraform"), "Terraform v1.10.5") },
			tool:  "tofu",
			want:  func(*sandbox) string { return "build " + pinTofu },
		},
		{
			name:  "a tofu that does not say it is one is not reused",
			setup: func(s *sandbox) { s.stub(filepath.Join(s.path, "tofu"), "tofu-wrapper 1.12.0") },
			tool:  "tofu",
			want:  func(*sandbox) string { return "build " + pinTofu },
		},
		{
			name: "DECKHOUSE_TOFU names the binary",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.12.0")
				s.env["DECKHOUSE_TOFU"] = s.stub(filepath.Join(s.root, "opt", "terraform"), "Terraform v1.13.1")
			},
			tool: "tofu",
			want: func(s *sandbox) string { return "explicit " + filepath.Join(s.root, "opt", "terraform") },
		},
		{
			name: "DECKHOUSE_TOFU may be a command name",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.path, "terraform"), "Terraform v1.12.0")
				s.env["DECKHOUSE_TOFU"] = "terraform"
			},
			tool: "tofu",
			want: func(s *sandbox) string { return "explicit " + filepath.Join(s.path, "terraform") },
		},
		{
			name: "the pinned build in the cache comes before the machine's tofu",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.12.0")
				s.stub(filepath.Join(s.cache, "pinned", "tofu-"+pinTofu), "OpenTofu "+pinTofu)
			},
			tool: "tofu",
			want: func(s *sandbox) string { return "cached " + filepath.Join(s.cache, "pinned", "tofu-"+pinTofu) },
		},
		{
			name: "a pinned build in bin/ from before pinned/ existed is used",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.cache, "bin", "etcd"), "etcd Version: 3.6.16", "Git SHA: 0")
			},
			tool: "etcd",
			want: func(s *sandbox) string { return "cached " + filepath.Join(s.cache, "bin", "etcd") },
		},
		{
			name: "DECKHOUSE_TOOLS_REUSE=0 builds",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.12.0")
				s.env["DECKHOUSE_TOOLS_REUSE"] = "0"
			},
			tool: "tofu",
			want: func(*sandbox) string { return "build " + pinTofu },
		},
		{
			name: "kube-apiserver from KUBEBUILDER_ASSETS",
			setup: func(s *sandbox) {
				d := filepath.Join(s.root, "assets")
				s.stub(filepath.Join(d, "kube-apiserver"), "Kubernetes v1.35.2")
				s.env["KUBEBUILDER_ASSETS"] = d
			},
			tool: "kube-apiserver",
			want: func(s *sandbox) string { return "reuse " + filepath.Join(s.root, "assets", "kube-apiserver") },
		},
		{
			name: "etcd 3.5 from KUBEBUILDER_ASSETS",
			setup: func(s *sandbox) {
				d := filepath.Join(s.root, "assets")
				s.stub(filepath.Join(d, "etcd"), "etcd Version: 3.5.21", "Git SHA: a17edfd", "Go Version: go1.23.7")
				s.env["KUBEBUILDER_ASSETS"] = d
			},
			tool: "etcd",
			want: func(s *sandbox) string { return "reuse " + filepath.Join(s.root, "assets", "etcd") },
		},
		{
			name: "too old kube-apiserver in KUBEBUILDER_ASSETS falls back to the build",
			setup: func(s *sandbox) {
				d := filepath.Join(s.root, "assets")
				s.stub(filepath.Join(d, "kube-apiserver"), "Kubernetes v1.29.0")
				s.env["KUBEBUILDER_ASSETS"] = d
			},
			tool: "kube-apiserver",
			want: func(*sandbox) string { return "build " + pinKube },
		},
		{
			name: "too new kube-apiserver falls back to the build",
			setup: func(s *sandbox) {
				d := filepath.Join(s.root, "assets")
				s.stub(filepath.Join(d, "kube-apiserver"), "Kubernetes v1.39.0")
				s.env["KUBEBUILDER_ASSETS"] = d
			},
			tool: "kube-apiserver",
			want: func(*sandbox) string { return "build " + pinKube },
		},
		{
			name: "etcd 3.4 falls back to the build",
			setup: func(s *sandbox) {
				d := filepath.Join(s.root, "assets")
				s.stub(filepath.Join(d, "etcd"), "etcd Version: 3.4.30")
				s.env["KUBEBUILDER_ASSETS"] = d
			},
			tool: "etcd",
			want: func(*sandbox) string { return "build " + pinEtcd },
		},
		{
			name: "setup-envtest's store: the newest version that fits",
			setup: func(s *sandbox) {
				for _, v := range []string{"1.33.0", "1.36.0", "1.35.3", "1.39.0"} {
					s.stub(filepath.Join(s.envtestDir(v), "kube-apiserver"), "Kubernetes v"+v)
				}
			},
			tool: "kube-apiserver",
			want: func(s *sandbox) string { return "reuse " + filepath.Join(s.envtestDir("1.36.0"), "kube-apiserver") },
		},
		{
			name: "KUBEBUILDER_ASSETS before setup-envtest's store",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.envtestDir("1.37.1"), "etcd"), "etcd Version: 3.6.4")
				d := filepath.Join(s.root, "assets")
				s.stub(filepath.Join(d, "etcd"), "etcd Version: 3.5.16")
				s.env["KUBEBUILDER_ASSETS"] = d
			},
			tool: "etcd",
			want: func(s *sandbox) string { return "reuse " + filepath.Join(s.root, "assets", "etcd") },
		},
		{
			name:  "a release terraform on PATH is never taken for terraform-experimental",
			setup: func(s *sandbox) { s.stub(filepath.Join(s.path, "terraform"), "Terraform v1.14.0", "on linux_amd64") },
			tool:  "terraform-experimental",
			want:  func(*sandbox) string { return "build v1.14.0" },
		},
		{
			name: "DECKHOUSE_TERRAFORM_EXPERIMENTAL names the experimental build",
			setup: func(s *sandbox) {
				s.env["DECKHOUSE_TERRAFORM_EXPERIMENTAL"] = s.stub(filepath.Join(s.root, "opt", "terraform-x"), "Terraform v1.14.0")
			},
			tool: "terraform-experimental",
			want: func(s *sandbox) string { return "explicit " + filepath.Join(s.root, "opt", "terraform-x") },
		},
		{
			name: "the cache's own link on PATH is not a candidate",
			setup: func(s *sandbox) {
				s.stub(filepath.Join(s.cache, "bin", "tofu"), "OpenTofu v1.12.0")
				s.env["PATH"] = filepath.Join(s.cache, "bin") + string(os.PathListSeparator) + s.env["PATH"]
			},
			tool: "tofu",
			want: func(*sandbox) string { return "build " + pinTofu },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			tt.setup(s)
			before := tree(t, s.cache)
			stdout, stderr, err := s.run(tt.tool)
			if err != nil {
				t.Fatalf("bootstrap.sh %s: %v\n%s", tt.tool, err, stderr)
			}
			if got, want := decision(t, stdout, tt.tool), tt.want(s); got != want {
				t.Errorf("decision = %q, want %q\nlog:\n%s", got, want, stderr)
			}
			if after := tree(t, s.cache); after != before {
				t.Errorf("the dry run changed the cache:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func TestBootstrap_ExplicitBinaryThatDoesNotFitFails(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.12.0")
	s.env["DECKHOUSE_TOFU"] = s.stub(filepath.Join(s.root, "old", "tofu"), "OpenTofu v1.8.3")
	_, stderr, err := s.run("tofu")
	if err == nil {
		t.Fatalf("bootstrap.sh succeeded with DECKHOUSE_TOFU naming OpenTofu 1.8; log:\n%s", stderr)
	}
	if !strings.Contains(stderr, "DECKHOUSE_TOFU") || !strings.Contains(stderr, "OpenTofu v1.8.3") {
		t.Errorf("the error does not name the variable and the version found:\n%s", stderr)
	}
}

func TestBootstrap_ReasonsArePrinted(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.10.7")
	s.stub(filepath.Join(s.path, "terraform"), "Terraform v1.11.4")
	_, stderr, err := s.run("tofu")
	if err != nil {
		t.Fatal(err, stderr)
	}
	for _, want := range []string{
		"not using " + filepath.Join(s.path, "tofu") + ", found on PATH: OpenTofu v1.10.7: needs OpenTofu or Terraform 1.x, at least 1.12",
		"not using " + filepath.Join(s.path, "terraform") + ", found on PATH: Terraform v1.11.4: needs OpenTofu or Terraform 1.x, at least 1.12 (resource identity",
		"tofu: would build the pinned " + pinTofu,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log lacks %q:\n%s", want, stderr)
		}
	}
}

// Without the dry run, bin/ holds links to the chosen binaries, a pinned
// build from before pinned/ existed moves there, and a stale build in bin/
// is replaced by a link. Nothing is built: every tool is found.
func TestBootstrap_LinksTheChosenBinariesIntoBin(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	delete(s.env, "DECKHOUSE_BOOTSTRAP_DRY_RUN")
	bin := filepath.Join(s.cache, "bin")
	terraform := s.stub(filepath.Join(s.path, "terraform"), "Terraform v1.12.2")
	s.stub(filepath.Join(bin, "tofu"), "OpenTofu v1.9.0") // a stale build
	s.stub(filepath.Join(bin, "etcd"), "etcd Version: 3.6.16")
	assets := filepath.Join(s.root, "assets")
	apiserver := s.stub(filepath.Join(assets, "kube-apiserver"), "Kubernetes v1.37.1")
	s.env["KUBEBUILDER_ASSETS"] = "assets" // relative to the folder bootstrap.sh runs in: the link must not be

	stdout, stderr, err := s.run()
	if err != nil {
		t.Fatalf("bootstrap.sh: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; last != bin {
		t.Errorf("last line = %q, want the bin folder %q", last, bin)
	}
	for tool, want := range map[string]string{
		"tofu":           terraform,
		"kube-apiserver": apiserver,
		"etcd":           filepath.Join("..", "pinned", "etcd-"+pinEtcd),
	} {
		got, err := os.Readlink(filepath.Join(bin, tool))
		if err != nil {
			t.Errorf("%s: %v", tool, err)
			continue
		}
		if got != want {
			t.Errorf("bin/%s -> %q, want %q", tool, got, want)
		}
	}
	if out, err := exec.Command(filepath.Join(bin, "etcd"), "--version").Output(); err != nil || !strings.Contains(string(out), "3.6.16") {
		t.Errorf("bin/etcd --version = %q, %v", out, err)
	}

	// A second run changes nothing and says why.
	_, stderr, err = s.run()
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "etcd: the pinned build in the cache") {
		t.Errorf("second run log:\n%s", stderr)
	}
}

// With DECKHOUSE_BOOTSTRAP_PINNED_ONLY=1 (what tools/matrix.sh uses) the
// exact versions asked for are provided from pinned/, even below the lower
// bounds, one path per tool; nothing on the machine is reused, bin/ is not
// touched, and a version not built yet is a build.
func TestBootstrap_PinnedOnlyProvidesExactBuildsAndLeavesBinAlone(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	delete(s.env, "DECKHOUSE_BOOTSTRAP_DRY_RUN")
	s.env["DECKHOUSE_BOOTSTRAP_PINNED_ONLY"] = "1"
	s.env["TOFU_VERSION"] = "v1.11.7"
	s.env["KUBE_VERSION"] = "v1.32.13"
	s.env["TERRAFORM_QUERY_VERSION"] = "v1.12.2"
	pinned := filepath.Join(s.cache, "pinned")
	tofu := s.stub(filepath.Join(pinned, "tofu-v1.11.7"), "OpenTofu v1.11.7")
	kube := s.stub(filepath.Join(pinned, "kube-apiserver-v1.32.13"), "Kubernetes v1.32.13")
	terraform := s.stub(filepath.Join(pinned, "terraform-query-v1.12.2"), "Terraform v1.12.2")
	s.stub(filepath.Join(s.path, "tofu"), "OpenTofu v1.11.7") // fits, but is not the cache's build
	binLink := filepath.Join(s.cache, "bin", "tofu")
	if err := os.MkdirAll(filepath.Dir(binLink), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../pinned/tofu-v1.12.6", binLink); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, err := s.run("tofu", "kube-apiserver", "terraform-query")
	if err != nil {
		t.Fatalf("bootstrap.sh: %v\n%s", err, stderr)
	}
	if got, want := strings.Split(strings.TrimSpace(stdout), "\n"), []string{tofu, kube, terraform}; !slices.Equal(got, want) {
		t.Errorf("stdout lines = %q, want %q", got, want)
	}
	if got, err := os.Readlink(binLink); err != nil || got != "../pinned/tofu-v1.12.6" {
		t.Errorf("bin/tofu -> %q (%v), want it left as it was", got, err)
	}
	if _, err := os.Lstat(filepath.Join(s.cache, "bin", "kube-apiserver")); !os.IsNotExist(err) {
		t.Errorf("bin/kube-apiserver was created (%v)", err)
	}

	s.env["DECKHOUSE_BOOTSTRAP_DRY_RUN"] = "1"
	s.env["ETCD_VERSION"] = "v3.5.21"
	stdout, stderr, err = s.run("etcd", "tofu")
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	if got := decision(t, stdout, "etcd"); got != "build v3.5.21" {
		t.Errorf("etcd: %q, want a build of v3.5.21", got)
	}
	if got := decision(t, stdout, "tofu"); got != "cached "+tofu {
		t.Errorf("tofu: %q, want the cached build %s", got, tofu)
	}
}
