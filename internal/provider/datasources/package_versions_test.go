package datasources

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCompareVersions_SemanticPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"v1.2.3", "v1.2.3", 0},
		{"v1.2.3", "v1.10.0", -1},
		{"v1.10.0", "v1.9.9", 1},
		{"v2.0.0", "v10.0.0", -1},
		{"v1.2.3-rc.1", "v1.2.3", -1},
		{"v1.2.3-rc.2", "v1.2.3-rc.10", -1},
		{"v1.2.3-alpha", "v1.2.3-rc.1", -1},
		{"v1.2.4-rc.1", "v1.2.3", 1},
		{"1.2.3", "v1.2.4", -1},
		// Equal precedence: ordered by text, so the order stays total.
		{"1.2.3", "v1.2.3", -1},
		{"v1.2.3", "v1.2.3+build.1", -1},
		// Strings that are not semantic versions come first, by text.
		{"latest", "v0.0.1", -1},
		{"v0.0.1", "latest", 1},
		{"main", "latest", 1},
	}
	for _, tt := range tests {
		t.Run(tt.a+"_vs_"+tt.b, func(t *testing.T) {
			t.Parallel()
			if got := compareVersions(tt.a, tt.b); got != tt.want {
				t.Errorf("compareVersions(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := compareVersions(tt.b, tt.a); got != -tt.want {
				t.Errorf("compareVersions(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
			}
		})
	}
}

func TestSortPackageVersions_OldestFirstThenRepository(t *testing.T) {
	t.Parallel()
	es := []packageVersionEntry{
		{Repository: "main", Version: "v1.10.0"},
		{Repository: "main", Version: "v1.2.0"},
		{Repository: "edge", Version: "v1.10.0"},
		{Repository: "main", Version: "v1.10.0-rc.1"},
		{Repository: "main", Version: "nightly"},
		{Repository: "main", Version: "v1.9.0"},
	}
	sortPackageVersions(es)
	var got []string
	for _, e := range es {
		got = append(got, e.Repository+"/"+e.Version)
	}
	want := []string{"main/nightly", "main/v1.2.0", "main/v1.9.0", "main/v1.10.0-rc.1", "edge/v1.10.0", "main/v1.10.0"}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestNewestPackageVersion_SkipsDraftsUnreadyAndNonSemver(t *testing.T) {
	t.Parallel()
	ready := func(repo, v string) packageVersionEntry {
		return packageVersionEntry{Repository: repo, Version: v, Ready: true}
	}
	tests := []struct {
		name     string
		in       []packageVersionEntry
		want     string // repository/version, "" for none
		wantNone bool
	}{
		{name: "none", in: nil, wantNone: true},
		{name: "highest ready", in: []packageVersionEntry{ready("main", "v1.2.0"), ready("main", "v1.10.0"), ready("main", "v1.9.0")}, want: "main/v1.10.0"},
		{
			name: "draft and unready newer versions are skipped",
			in: []packageVersionEntry{
				ready("main", "v1.2.0"),
				{Repository: "main", Version: "v2.0.0", Draft: true},
				{Repository: "main", Version: "v1.5.0"},
			},
			want: "main/v1.2.0",
		},
		{name: "a pre-release counts by precedence", in: []packageVersionEntry{ready("main", "v1.2.3"), ready("main", "v1.3.0-rc.1")}, want: "main/v1.3.0-rc.1"},
		{name: "a release beats its pre-release", in: []packageVersionEntry{ready("main", "v1.3.0"), ready("main", "v1.3.0-rc.1")}, want: "main/v1.3.0"},
		{name: "not a semantic version", in: []packageVersionEntry{ready("main", "latest")}, wantNone: true},
		{name: "equal versions: first repository by name", in: []packageVersionEntry{ready("main", "v1.0.0"), ready("edge", "v1.0.0")}, want: "edge/v1.0.0"},
		{name: "only drafts", in: []packageVersionEntry{{Repository: "main", Version: "v1.0.0", Draft: true, Ready: false}}, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tt.in)
			sortPackageVersions(in)
			got, ok := newestPackageVersion(in)
			if tt.wantNone {
				if ok {
					t.Errorf("newest = %s/%s, want none", got.Repository, got.Version)
				}
				return
			}
			if !ok || got.Repository+"/"+got.Version != tt.want {
				t.Errorf("newest = %s/%s (found %v), want %s", got.Repository, got.Version, ok, tt.want)
			}
		})
	}
}

func TestReadPackageVersionEntry_FiltersOnSpecAndReadsReadiness(t *testing.T) {
	t.Parallel()
	apv := func(repo, pkg, ver string, labels map[string]any, loaded string) *unstructured.Unstructured {
		md := map[string]any{"name": repo + "-" + pkg + "-" + ver}
		if labels != nil {
			md["labels"] = labels
		}
		obj := map[string]any{
			"metadata": md,
			"spec":     map[string]any{"packageName": pkg, "packageRepositoryName": repo, "packageVersion": ver},
		}
		if loaded != "" {
			obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "MetadataLoaded", "status": loaded}}}
		}
		return &unstructured.Unstructured{Object: obj}
	}
	tests := []struct {
		name      string
		obj       *unstructured.Unstructured
		pkg, repo string
		wantOK    bool
		want      packageVersionEntry
	}{
		{
			name: "ready", obj: apv("main", "demo", "v1.0.0", nil, "True"), pkg: "demo", wantOK: true,
			want: packageVersionEntry{Repository: "main", Version: "v1.0.0", Name: "main-demo-v1.0.0", Ready: true},
		},
		{name: "other package", obj: apv("main", "demo-b", "v1.0.0", nil, "True"), pkg: "demo"},
		{name: "other repository", obj: apv("edge", "demo", "v1.0.0", nil, "True"), pkg: "demo", repo: "main"},
		{
			name: "draft", obj: apv("main", "demo", "v1.0.0", map[string]any{"packages.deckhouse.io/draft": "true"}, "True"), pkg: "demo", repo: "main", wantOK: true,
			want: packageVersionEntry{Repository: "main", Version: "v1.0.0", Name: "main-demo-v1.0.0", Draft: true},
		},
		{
			name: "draft label false", obj: apv("main", "demo", "v1.0.0", map[string]any{"packages.deckhouse.io/draft": "false"}, "True"), pkg: "demo", wantOK: true,
			want: packageVersionEntry{Repository: "main", Version: "v1.0.0", Name: "main-demo-v1.0.0", Ready: true},
		},
		{
			name: "metadata not loaded", obj: apv("main", "demo", "v1.0.0", nil, "False"), pkg: "demo", wantOK: true,
			want: packageVersionEntry{Repository: "main", Version: "v1.0.0", Name: "main-demo-v1.0.0"},
		},
		{
			name: "no conditions yet", obj: apv("main", "demo", "v1.0.0", nil, ""), pkg: "demo", wantOK: true,
			want: packageVersionEntry{Repository: "main", Version: "v1.0.0", Name: "main-demo-v1.0.0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := readPackageVersionEntry(tt.obj, tt.pkg, tt.repo)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
