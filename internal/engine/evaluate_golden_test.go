package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite want.json of the package cases under testdata/packages")

// goldenWant is the expected outcome of one case.
type goldenWant struct {
	Problems  []goldenProblem `json:"problems"`
	Warnings  []goldenProblem `json:"warnings,omitempty"`
	Switches  []goldenSwitch  `json:"switches,omitempty"`
	Effective map[string]any  `json:"effective,omitempty"`
	Values    map[string]any  `json:"values,omitempty"`
}

type goldenProblem struct {
	Document string `json:"document"`
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Message  string `json:"message"`
}

type goldenSwitch struct {
	Path   string `json:"path"`
	From   string `json:"from"`
	To     string `json:"to"`
	Impact string `json:"impact"`
}

type goldenOptions struct {
	AllowDestructiveSwitch bool `json:"allowDestructiveSwitch"`
	PreviousIsRaw          bool `json:"previousIsRaw"`
	VersionChange          bool `json:"versionChange"`
}

type goldenCatalogEntry struct {
	Default   string   `json:"default"`
	Available []string `json:"available"`
}

// TestGolden_PackageCases loads every package under testdata/packages and
// evaluates each case under its cases/ folder: settings.json, and optionally
// previous.json (an update), previous_raw.json (the previous raw settings,
// oldSelf), catalog.json, hook_values.json and options.json
// (allowDestructiveSwitch, previousIsRaw, versionChange: the update changes
// the package version).
// want.json holds the expected problems (document, kind, path, message),
// switches, and, for accepted cases, the effective settings and values.
func TestGolden_PackageCases(t *testing.T) {
	pkgs, err := filepath.Glob("testdata/packages/*")
	if err != nil || len(pkgs) < 4 {
		t.Fatalf("want at least 4 package folders, got %v (%v)", pkgs, err)
	}
	for _, dir := range pkgs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			p := tryLoad(t, func() (*Package, error) { return LoadDir(dir) })
			cases, _ := filepath.Glob(filepath.Join(dir, "cases", "*"))
			if len(cases) == 0 {
				t.Fatal("no cases")
			}
			for _, c := range cases {
				t.Run(filepath.Base(c), func(t *testing.T) { runGoldenCase(t, p, c) })
			}
		})
	}
}

func runGoldenCase(t *testing.T, p *Package, dir string) {
	var req Request
	if !readJSON(t, filepath.Join(dir, "settings.json"), &req.Settings) {
		t.Fatal("settings.json is missing")
	}
	req.HasPrevious = readJSON(t, filepath.Join(dir, "previous.json"), &req.Previous)
	req.HasPreviousRaw = readJSON(t, filepath.Join(dir, "previous_raw.json"), &req.PreviousRaw)
	readJSON(t, filepath.Join(dir, "hook_values.json"), &req.HookValues)
	var cat map[string]goldenCatalogEntry
	if readJSON(t, filepath.Join(dir, "catalog.json"), &cat) {
		req.Catalog = Catalog{}
		for k, v := range cat {
			req.Catalog[k] = GrantCatalog(v)
		}
	}
	var opts goldenOptions
	readJSON(t, filepath.Join(dir, "options.json"), &opts)
	req.AllowDestructiveSwitch = opts.AllowDestructiveSwitch
	req.PreviousIsRaw = opts.PreviousIsRaw
	req.VersionChange = opts.VersionChange

	res := p.Evaluate(req)
	got := goldenWant{Problems: []goldenProblem{}}
	for _, pr := range res.Problems {
		got.Problems = append(got.Problems, goldenProblem{string(pr.Document), string(pr.Kind), pr.Path.String(), pr.Message})
	}
	for _, pr := range res.Warnings {
		got.Warnings = append(got.Warnings, goldenProblem{string(pr.Document), string(pr.Kind), pr.Path.String(), pr.Message})
	}
	for _, s := range res.Switches {
		got.Switches = append(got.Switches, goldenSwitch{s.Path.String(), s.From, s.To, string(s.Impact)})
	}
	sort.Slice(got.Switches, func(i, j int) bool { return got.Switches[i].Path < got.Switches[j].Path })
	if res.OK() {
		got.Effective, got.Values = res.Effective, res.Values
	}
	gotJSON, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	gotJSON = append(gotJSON, '\n')
	wantPath := filepath.Join(dir, "want.json")
	if *updateGolden {
		if err := os.WriteFile(wantPath, gotJSON, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	wantRaw, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatalf("want.json: %v", err)
	}
	// Compare semantically: re-encode the wanted file through the same type.
	var want goldenWant
	if err := json.Unmarshal(wantRaw, &want); err != nil {
		t.Fatalf("want.json: %v", err)
	}
	if want.Problems == nil {
		want.Problems = []goldenProblem{}
	}
	wantJSON, _ := json.MarshalIndent(want, "", "  ")
	wantJSON = append(wantJSON, '\n')
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Fatalf("outcome differs from want.json\n--- got\n%s--- want\n%s", gotJSON, wantJSON)
	}
}

// readJSON decodes path into v with numbers as json.Number; false when absent.
func readJSON(t *testing.T, path string, v any) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return true
}
