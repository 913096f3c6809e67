package datasources

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"golang.org/x/mod/semver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
)

var (
	_ datasource.DataSource              = &PackageVersionsDataSource{}
	_ datasource.DataSourceWithConfigure = &PackageVersionsDataSource{}
)

// NewPackageVersions returns deckhouse_package_versions.
func NewPackageVersions() datasource.DataSource { return &PackageVersionsDataSource{} }

// PackageVersionsDataSource lists the ApplicationPackageVersions of a package.
type PackageVersionsDataSource struct {
	cluster
}

type packageVersionsDataModel struct {
	ID          types.String `tfsdk:"id"`
	PackageName types.String `tfsdk:"package_name"`
	Repository  types.String `tfsdk:"repository"`
	Versions    types.List   `tfsdk:"versions"`
	Newest      types.Object `tfsdk:"newest"`
}

// packageVersionEntry is one ApplicationPackageVersion of a package.
type packageVersionEntry struct {
	Repository, Version, Name string
	Draft, Ready              bool
}

var packageVersionEntryAttrTypes = map[string]attr.Type{
	"repository": types.StringType,
	"version":    types.StringType,
	"name":       types.StringType,
	"draft":      types.BoolType,
	"ready":      types.BoolType,
}

func (d *PackageVersionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_package_versions"
}

func (d *PackageVersionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	entry := func(what string) map[string]schema.Attribute {
		return map[string]schema.Attribute{
			"repository": schema.StringAttribute{Computed: true, MarkdownDescription: "PackageRepository (`spec.packageRepositoryName`) of " + what + "."},
			"version":    schema.StringAttribute{Computed: true, MarkdownDescription: "`spec.packageVersion` of " + what + ", for example `v1.2.3`."},
			"name":       schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the ApplicationPackageVersion: `<repository>-<package>-<version>`."},
			"draft":      schema.BoolAttribute{Computed: true, MarkdownDescription: "The version carries the label `packages.deckhouse.io/draft` and cannot be installed."},
			"ready":      schema.BoolAttribute{Computed: true, MarkdownDescription: "The version is not a draft and has `MetadataLoaded=True`: an Application can install it."},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the versions of a package that DP found in its repositories (the ApplicationPackageVersion " +
			"objects whose `spec.packageName` is the package), sorted by semantic version, and picks the newest one " +
			"that can be installed, so a module can follow the latest release. The provider reads them with a paged " +
			"LIST of `applicationpackageversions.deckhouse.io` (500 objects a page) and filters on the spec.\n\n" +
			"Versions compare as semantic versions (`v1.2.3` < `v1.10.0`; a pre-release such as `v1.2.3-rc.1` is older " +
			"than `v1.2.3`; build metadata is ignored); a missing leading `v` is tolerated. Versions that are not " +
			"semantic versions sort first, by their text, and are never the newest.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<package_name>`, or `<repository>/<package_name>` when filtered by repository."},
			"package_name": schema.StringAttribute{
				Required: true, MarkdownDescription: "Name of the ApplicationPackage.",
			},
			"repository": schema.StringAttribute{
				Optional: true, MarkdownDescription: "Only the versions of this PackageRepository. Every repository when omitted.",
			},
			"versions": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "The versions, oldest first by semantic version; equal versions of several repositories " +
					"are ordered by repository name. Drafts and versions that are not ready are included. An empty list " +
					"when the package has no versions (or does not exist).",
				NestedObject: schema.NestedAttributeObject{Attributes: entry("the version")},
			},
			"newest": schema.SingleNestedAttribute{
				Computed: true,
				MarkdownDescription: "The newest version by semantic version that is not a draft and is ready, among the versions " +
					"of `repository` when it is set, of every repository otherwise (when several repositories offer the " +
					"same version, the one listed first in `versions`). A pre-release newer than every release is the newest: " +
					"to follow releases only, pick from `versions` instead. Null when no version qualifies.",
				Attributes: entry("the newest version"),
			},
		},
	}
}

func (d *PackageVersionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m packageVersionsDataModel
	cl := d.begin(ctx, req, resp, &m)
	if cl == nil {
		return
	}
	pkg, repo := m.PackageName.ValueString(), m.Repository.ValueString()
	var entries []packageVersionEntry
	err := cl.ListPackageVersions(ctx, func(obj *unstructured.Unstructured) {
		if e, ok := readPackageVersionEntry(obj, pkg, repo); ok {
			entries = append(entries, e)
		}
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot list package versions",
			fmt.Sprintf("Listing the ApplicationPackageVersions of package %q: %v", pkg, err))
		return
	}
	sortPackageVersions(entries)

	m.ID = types.StringValue(pkg)
	if repo != "" {
		m.ID = types.StringValue(repo + "/" + pkg)
	}
	elems := make([]attr.Value, 0, len(entries))
	for _, e := range entries {
		elems = append(elems, e.value())
	}
	m.Versions = types.ListValueMust(types.ObjectType{AttrTypes: packageVersionEntryAttrTypes}, elems)
	m.Newest = types.ObjectNull(packageVersionEntryAttrTypes)
	if n, ok := newestPackageVersion(entries); ok {
		m.Newest = n.value()
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// readPackageVersionEntry reads an ApplicationPackageVersion when it belongs
// to package pkg (and to repository repo, when repo is not empty). The spec
// fields are the filter: DP sets and freezes them, while no label of the
// version is documented to name its package.
func readPackageVersionEntry(obj *unstructured.Unstructured, pkg, repo string) (packageVersionEntry, bool) {
	h := dpclient.PackageVersionHeader(obj)
	if h.PackageName != pkg || (repo != "" && h.Repository != repo) {
		return packageVersionEntry{}, false
	}
	return packageVersionEntry{Repository: h.Repository, Version: h.Version, Name: h.Name, Draft: h.Draft, Ready: h.Ready()}, true
}

func (e packageVersionEntry) value() types.Object {
	return types.ObjectValueMust(packageVersionEntryAttrTypes, map[string]attr.Value{
		"repository": types.StringValue(e.Repository),
		"version":    types.StringValue(e.Version),
		"name":       types.StringValue(e.Name),
		"draft":      types.BoolValue(e.Draft),
		"ready":      types.BoolValue(e.Ready),
	})
}

// canonicalSemver returns v as a semantic version with the leading "v"
// golang.org/x/mod/semver expects, and whether it is one.
func canonicalSemver(v string) (string, bool) {
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return v, semver.IsValid(v)
}

// compareVersions orders package versions: semantic versions by semantic
// version precedence, after every string that is not one (those by text).
// Versions of equal precedence (v1.2.3 and v1.2.3+build, 1.2.3 and v1.2.3)
// compare by text, so the order is total and deterministic.
func compareVersions(a, b string) int {
	ca, okA := canonicalSemver(a)
	cb, okB := canonicalSemver(b)
	switch {
	case okA && okB:
		if c := semver.Compare(ca, cb); c != 0 {
			return c
		}
	case okA:
		return 1
	case okB:
		return -1
	}
	return strings.Compare(a, b)
}

// sortPackageVersions sorts oldest first; equal versions by repository, then name.
func sortPackageVersions(es []packageVersionEntry) {
	slices.SortStableFunc(es, func(a, b packageVersionEntry) int {
		return cmp.Or(compareVersions(a.Version, b.Version), cmp.Compare(a.Repository, b.Repository), cmp.Compare(a.Name, b.Name))
	})
}

// newestPackageVersion returns the newest ready, non-draft entry whose version
// is a semantic version; of entries of equal precedence the first wins (so,
// with es sorted by sortPackageVersions, the first repository by name).
func newestPackageVersion(es []packageVersionEntry) (packageVersionEntry, bool) {
	best, found := packageVersionEntry{}, false
	for _, e := range es {
		if e.Draft || !e.Ready {
			continue
		}
		if _, ok := canonicalSemver(e.Version); !ok {
			continue
		}
		if !found || semverNewer(e.Version, best.Version) {
			best, found = e, true
		}
	}
	return best, found
}

// semverNewer reports whether a has higher semantic version precedence than b
// (both valid): a later entry of equal precedence does not replace an earlier one.
func semverNewer(a, b string) bool {
	ca, _ := canonicalSemver(a)
	cb, _ := canonicalSemver(b)
	return semver.Compare(ca, cb) > 0
}
