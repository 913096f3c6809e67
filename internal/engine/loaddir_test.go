package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadDir_SymlinkOutOfTheFolderIsRefused: LoadDir and VerifyDir read
// through os.Root; a link that leads outside the package folder is an error
// naming the file, a link inside the folder is followed.
func TestLoadDir_SymlinkOutOfTheFolderIsRefused(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	secret := filepath.Join(base, "kubeconfig")
	write(t, secret, "type: object\nproperties:\n  token: {type: string}\n")
	write(t, filepath.Join(base, "outside", "settings.yaml"), "type: object\n")

	mk := func(name string, setup func(pkg string)) string {
		pkg := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(pkg, "openapi"), 0o755); err != nil {
			t.Fatal(err)
		}
		setup(pkg)
		return pkg
	}
	link := func(target, name string) {
		if err := os.Symlink(target, name); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	cases := []struct {
		name string
		pkg  string
		want string // "" = loads
	}{
		{"absolute link out", mk("abs", func(pkg string) {
			link(secret, filepath.Join(pkg, "openapi", "settings.yaml"))
		}), "openapi/settings.yaml: cannot be read: it is a symbolic link"},
		{"relative link out", mk("rel", func(pkg string) {
			link("../../kubeconfig", filepath.Join(pkg, "openapi", "settings.yaml"))
		}), "openapi/settings.yaml: cannot be read: it is a symbolic link"},
		{"values link out", mk("values", func(pkg string) {
			write(t, filepath.Join(pkg, "openapi", "settings.yaml"), "type: object\n")
			link(secret, filepath.Join(pkg, "openapi", "values.yaml"))
		}), "openapi/values.yaml: cannot be read: it is a symbolic link"},
		{"openapi folder link out", mk("dir", func(pkg string) {
			if err := os.Remove(filepath.Join(pkg, "openapi")); err != nil {
				t.Fatal(err)
			}
			link(filepath.Join(base, "outside"), filepath.Join(pkg, "openapi"))
		}), "no readable openapi/ directory: it is a symbolic link"},
		{"link inside the folder", mk("inside", func(pkg string) {
			write(t, filepath.Join(pkg, "schemas", "s.yaml"), "type: object\n")
			link("../schemas/s.yaml", filepath.Join(pkg, "openapi", "settings.yaml"))
		}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := LoadDir(tc.pkg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := VerifyDir(tc.pkg); err != nil {
					t.Fatal(err)
				}
				return
			}
			var se *SchemaError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadDir: got %v (package %v), want an error containing %q", err, p != nil, tc.want)
			}
			fs, err := VerifyDir(tc.pkg)
			if err != nil {
				if !strings.Contains(err.Error(), "symbolic link") {
					t.Fatalf("VerifyDir: %v", err)
				}
				return
			}
			found := false
			for _, f := range fs {
				if f.Severity == SeverityError && strings.Contains(f.Message, "symbolic link") {
					found = true
				}
				if strings.Contains(f.Message, "token") {
					t.Fatalf("VerifyDir read the file outside: %+v", f)
				}
			}
			if !found {
				t.Fatalf("VerifyDir findings %v lack the refused link", fs)
			}
		})
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvaluate_PanicIsAProblemNamingThePackage: a panic inside Evaluate (a
// bug) becomes one problem naming the package folder,
// without the panic value.
func TestEvaluate_PanicIsAProblemNamingThePackage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "openapi", "settings.yaml"), "type: object\nproperties:\n  a: {type: string}\n")
	write(t, filepath.Join(dir, "openapi", "values.yaml"), "x-extend: {schema: settings.yaml}\ntype: object\n")
	p, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	broken := *p
	bug := &schemaNode{rules: []*celRule{nil}} // a nil rule: a bug's shape
	broken.settings = &schemaDoc{rules: bug}
	broken.values = &schemaDoc{rules: bug}
	res := broken.Evaluate(Request{Settings: map[string]any{"a": "SECRET"}, Catalog: Catalog{"x": {}}})
	if len(res.Problems) != 1 {
		t.Fatalf("problems: %v", problemSummary(res.Problems))
	}
	for _, ps := range [][]*Problem{res.Problems} {
		if len(ps) != 1 {
			t.Fatalf("problems: %v", problemSummary(ps))
		}
		msg := ps[0].Message
		if !strings.Contains(msg, "internal error while evaluating against the package at "+dir) || strings.Contains(msg, "SECRET") {
			t.Fatalf("message %q", msg)
		}
	}
	if q, err := LoadDir(dir); err != nil || q.describe() != "the package at "+dir {
		t.Fatalf("LoadDir names its folder: %v %v", q, err)
	}
}
