package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
)

const name = "terraform-provider-deckhouse"

// writeDist writes a goreleaser-shaped dist folder: one zip per platform
// (holding a binary whose content is content+platform), the registry
// manifest and the SHA256SUMS file over all of them.
func writeDist(t *testing.T, dir, version, content string, platforms ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var sums strings.Builder
	add := func(file string, body []byte) {
		if err := os.WriteFile(filepath.Join(dir, file), body, 0o644); err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(body)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(s[:]), file)
	}
	for _, p := range platforms {
		path := filepath.Join(dir, fmt.Sprintf("%s_%s_%s.zip", name, version, p))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		w, err := zw.Create(name + "_v" + version)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content + p)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(path), body)
	}
	add(fmt.Sprintf("%s_%s_manifest.json", name, version), []byte(`{"version":1,"metadata":{"protocol_versions":["6.0"]}}`))
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s_%s_SHA256SUMS", name, version)), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func opts(dist, out string) options {
	return options{dist: dist, out: out, name: name, namespace: "deckhouse", ptype: "deckhouse",
		hosts: []string{"registry.opentofu.org", "registry.terraform.io"}}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestNetMirror_WritesTheProtocolLayoutUnderEveryHost: index.json lists the
// version, <version>.json names every zip of SHA256SUMS (not the manifest)
// by a URL relative to itself with its h1: and zh: hashes, and the zips and
// the checksum files are beside it, under each hostname.
func TestNetMirror_WritesTheProtocolLayoutUnderEveryHost(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dist, out := filepath.Join(root, "dist"), filepath.Join(root, "mirror")
	writeDist(t, dist, "0.1.0", "bin", "linux_amd64", "darwin_arm64")
	if err := os.WriteFile(filepath.Join(dist, name+"_0.1.0_SHA256SUMS.sig"), []byte("sig"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirs, err := run(opts(dist, out))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 2 {
		t.Fatalf("wrote %v, want one folder per host", dirs)
	}
	for _, host := range []string{"registry.opentofu.org", "registry.terraform.io"} {
		dir := filepath.Join(out, host, "deckhouse", "deckhouse")
		var index indexDoc
		readJSON(t, filepath.Join(dir, "index.json"), &index)
		if !reflect.DeepEqual(index.Versions, map[string]struct{}{"0.1.0": {}}) {
			t.Errorf("%s index.json versions = %v", host, index.Versions)
		}
		var doc versionDoc
		readJSON(t, filepath.Join(dir, "0.1.0.json"), &doc)
		if len(doc.Archives) != 2 {
			t.Fatalf("%s 0.1.0.json archives = %v, want the two zips", host, doc.Archives)
		}
		for platform, a := range doc.Archives {
			zipPath := filepath.Join(dir, a.URL)
			if a.URL != fmt.Sprintf("%s_0.1.0_%s.zip", name, platform) {
				t.Errorf("%s: url %q", platform, a.URL)
			}
			h1, err := dirhash.HashZip(zipPath, dirhash.Hash1)
			if err != nil {
				t.Fatal(err)
			}
			zh, err := sha256File(zipPath)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{h1, "zh:" + zh}; !reflect.DeepEqual(a.Hashes, want) {
				t.Errorf("%s: hashes %v, want %v", platform, a.Hashes, want)
			}
		}
		for _, f := range []string{name + "_0.1.0_SHA256SUMS", name + "_0.1.0_SHA256SUMS.sig", name + "_0.1.0_manifest.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", host, err)
			}
		}
	}
}

// TestNetMirror_RefusesWhatTheChecksumsDoNotCover: a zip that differs from
// its SHA256SUMS line, a SHA256SUMS with no zip, a missing SHA256SUMS and a
// version the CLIs would not accept stop the run before anything is
// written.
func TestNetMirror_RefusesWhatTheChecksumsDoNotCover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, dist string)
		want    string
	}{
		{
			name: "a zip changed after the checksums were written",
			prepare: func(t *testing.T, dist string) {
				writeDist(t, dist, "0.1.0", "bin", "linux_amd64")
				writeDist(t, filepath.Join(dist, "other"), "0.1.0", "other", "linux_amd64")
				if err := os.Rename(filepath.Join(dist, "other", name+"_0.1.0_linux_amd64.zip"), filepath.Join(dist, name+"_0.1.0_linux_amd64.zip")); err != nil {
					t.Fatal(err)
				}
			},
			want: "but " + name + "_0.1.0_SHA256SUMS lists",
		},
		{
			name: "no zip listed",
			prepare: func(t *testing.T, dist string) {
				writeDist(t, dist, "0.1.0", "bin")
			},
			want: "lists no",
		},
		{
			name:    "no release",
			prepare: func(t *testing.T, dist string) { _ = os.MkdirAll(dist, 0o755) },
			want:    "run goreleaser",
		},
		{
			name: "not a version",
			prepare: func(t *testing.T, dist string) {
				writeDist(t, dist, "latest", "bin", "linux_amd64")
			},
			want: "not a version",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dist, out := filepath.Join(root, "dist"), filepath.Join(root, "mirror")
			tt.prepare(t, dist)
			_, err := run(opts(dist, out))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the mirror folder was written: %v", err)
			}
		})
	}
}

// TestNetMirror_AddsVersionsAndKeepsPublishedOnes: a second release added
// to the same folder keeps the first in index.json; the same version again
// with other archives is refused (lock files recorded the first ones) unless
// -replace is given; the same archives again change nothing.
func TestNetMirror_AddsVersionsAndKeepsPublishedOnes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	out := filepath.Join(root, "mirror")
	dir := filepath.Join(out, "registry.terraform.io", "deckhouse", "deckhouse")
	first, second, rebuilt := filepath.Join(root, "d1"), filepath.Join(root, "d2"), filepath.Join(root, "d3")
	writeDist(t, first, "0.1.0", "one", "linux_amd64")
	writeDist(t, second, "0.2.0", "two", "linux_amd64")
	writeDist(t, rebuilt, "0.1.0", "changed", "linux_amd64")

	for _, dist := range []string{first, second, first} {
		if _, err := run(opts(dist, out)); err != nil {
			t.Fatal(err)
		}
	}
	var index indexDoc
	readJSON(t, filepath.Join(dir, "index.json"), &index)
	if !reflect.DeepEqual(index.Versions, map[string]struct{}{"0.1.0": {}, "0.2.0": {}}) {
		t.Errorf("index.json versions = %v, want both releases", index.Versions)
	}

	if _, err := run(opts(rebuilt, out)); err == nil || !strings.Contains(err.Error(), "-replace") {
		t.Fatalf("re-publishing 0.1.0 with other archives: %v, want a refusal naming -replace", err)
	}
	o := opts(rebuilt, out)
	o.replace = true
	if _, err := run(o); err != nil {
		t.Fatal(err)
	}
	var doc versionDoc
	readJSON(t, filepath.Join(dir, "0.1.0.json"), &doc)
	zh, err := sha256File(filepath.Join(rebuilt, name+"_0.1.0_linux_amd64.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Archives["linux_amd64"].Hashes; len(got) != 2 || got[1] != "zh:"+zh {
		t.Errorf("after -replace, 0.1.0.json hashes = %v, want the rebuilt zip's zh:%s", got, zh)
	}
}
