package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/sumdb/dirhash"
)

// options are the command's flags.
type options struct {
	dist, out        string
	name             string
	namespace, ptype string
	hosts            []string
	version          string
	replace          bool
}

func main() {
	// The archives' project name and the provider's source addresses.
	o := options{name: "terraform-provider-deckhouse", namespace: "deckhouse", ptype: "deckhouse",
		hosts: []string{"registry.opentofu.org", "registry.terraform.io"}}
	flag.StringVar(&o.dist, "dist", "dist", "the folder goreleaser wrote the release into")
	flag.StringVar(&o.out, "out", "dist/netmirror", "the network mirror folder to write (created or added to)")
	flag.StringVar(&o.version, "version", "", "the version to lay out (default: the only one whose SHA256SUMS is in -dist)")
	flag.BoolVar(&o.replace, "replace", false, "replace a version the mirror already holds with other archives")
	flag.Parse()
	dirs, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "netmirror:", err)
		os.Exit(1)
	}
	for _, d := range dirs {
		fmt.Println(d)
	}
}

// archive is one zip of the release.
type archive struct {
	file     string // file name in dist
	platform string // <os>_<arch>
	zh, h1   string
}

// versionDoc is <version>.json.
type versionDoc struct {
	Archives map[string]archiveDoc `json:"archives"`
}

type archiveDoc struct {
	URL    string   `json:"url"`
	Hashes []string `json:"hashes"`
}

// indexDoc is index.json.
type indexDoc struct {
	Versions map[string]struct{} `json:"versions"`
}

// run writes the mirror and returns the folder written for each host.
func run(o options) ([]string, error) {
	if len(o.hosts) == 0 {
		return nil, errors.New("no hostname given")
	}
	sums, version, err := findSums(o)
	if err != nil {
		return nil, err
	}
	archives, err := readArchives(o, sums, version)
	if err != nil {
		return nil, err
	}
	doc := versionDoc{Archives: map[string]archiveDoc{}}
	for _, a := range archives {
		doc.Archives[a.platform] = archiveDoc{URL: a.file, Hashes: []string{a.h1, a.zh}}
	}
	// The files that let a user check the archives: the signature and
	// the registry manifest, which SHA256SUMS also covers, when present.
	extra := []string{filepath.Base(sums)}
	for _, f := range []string{filepath.Base(sums) + ".sig", o.name + "_" + version + "_manifest.json"} {
		if _, err := os.Stat(filepath.Join(o.dist, f)); err == nil {
			extra = append(extra, f)
		}
	}
	var written []string
	for _, host := range o.hosts {
		dir := filepath.Join(o.out, host, o.namespace, o.ptype)
		if err := writeProvider(dir, o, version, doc, archives, extra); err != nil {
			return nil, err
		}
		written = append(written, dir)
	}
	return written, nil
}

// findSums returns the path of the SHA256SUMS file to lay out and its
// version.
func findSums(o options) (string, string, error) {
	version := strings.TrimPrefix(o.version, "v")
	pattern := filepath.Join(o.dist, o.name+"_*_SHA256SUMS")
	if version != "" {
		pattern = filepath.Join(o.dist, o.name+"_"+version+"_SHA256SUMS")
	}
	found, err := filepath.Glob(pattern)
	if err != nil {
		return "", "", err
	}
	switch len(found) {
	case 0:
		return "", "", fmt.Errorf("no %s in %s: run goreleaser (make release) first", filepath.Base(pattern), o.dist)
	case 1:
	default:
		return "", "", fmt.Errorf("%d SHA256SUMS files in %s: choose one with -version", len(found), o.dist)
	}
	base := filepath.Base(found[0])
	version = strings.TrimSuffix(strings.TrimPrefix(base, o.name+"_"), "_SHA256SUMS")
	if !semver.MatchString(version) {
		return "", "", fmt.Errorf("%s: %q is not a version the CLIs accept (for example 0.1.0)", base, version)
	}
	return found[0], version, nil
}

var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// readArchives checks every zip SHA256SUMS lists against its checksum and
// returns them with their hashes.
func readArchives(o options, sums, version string) ([]archive, error) {
	f, err := os.Open(sums)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	prefix := o.name + "_" + version + "_"
	var out []archive
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		sum, file := strings.ToLower(fields[0]), strings.TrimPrefix(fields[1], "*")
		platform, ok := strings.CutPrefix(file, prefix)
		if !ok || !strings.HasSuffix(platform, ".zip") {
			continue // the registry manifest, or another project's file
		}
		platform = strings.TrimSuffix(platform, ".zip")
		path := filepath.Join(o.dist, file)
		got, err := sha256File(path)
		if err != nil {
			return nil, err
		}
		if got != sum {
			return nil, fmt.Errorf("%s: SHA-256 %s, but %s lists %s", file, got, filepath.Base(sums), sum)
		}
		h1, err := dirhash.HashZip(path, dirhash.Hash1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out = append(out, archive{file: file, platform: platform, zh: "zh:" + sum, h1: h1})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no %s*.zip", filepath.Base(sums), prefix)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].platform < out[j].platform })
	return out, nil
}

// writeProvider writes one host's copy of the provider: archives, the
// version document and the index, the index last so that a server never
// lists a version whose files are not all there.
func writeProvider(dir string, o options, version string, doc versionDoc, archives []archive, extra []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	body = append(body, '\n')
	versionFile := filepath.Join(dir, version+".json")
	if old, err := os.ReadFile(versionFile); err == nil && !bytes.Equal(old, body) && !o.replace {
		return fmt.Errorf("%s already holds version %s with other archives: a lock file that recorded them would refuse these; "+
			"release a new version, or pass -replace", dir, version)
	}
	for _, a := range archives {
		if err := copyFile(filepath.Join(o.dist, a.file), filepath.Join(dir, a.file)); err != nil {
			return err
		}
	}
	for _, name := range extra {
		if err := copyFile(filepath.Join(o.dist, name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	if err := writeAtomic(versionFile, body); err != nil {
		return err
	}
	index := indexDoc{Versions: map[string]struct{}{}}
	if old, err := os.ReadFile(filepath.Join(dir, "index.json")); err == nil {
		if err := json.Unmarshal(old, &index); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, "index.json"), err)
		}
		if index.Versions == nil {
			index.Versions = map[string]struct{}{}
		}
	}
	index.Versions[version] = struct{}{}
	body, err = json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "index.json"), append(body, '\n'))
}

func sha256File(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// copyFile copies src to dst through a temporary file, so a server never
// serves half a file.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeAtomic(dst, data)
}

func writeAtomic(path string, body []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, body, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
