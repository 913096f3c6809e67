package application

import (
	"errors"
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

// TestPackageVersionPending_WaitsOnlyForWhatDPCanStillFix: a missing
// version, one whose metadata is not loaded and one without published
// schemas are waited for; a draft, schemas that do not compile and an
// installable version are final.
func TestPackageVersionPending_WaitsOnlyForWhatDPCanStillFix(t *testing.T) {
	t.Parallel()
	pkg := &engine.Package{}
	tests := []struct {
		name string
		v    *dpclient.PackageVersion
		want bool
	}{
		{"nil", nil, true},
		{"missing", &dpclient.PackageVersion{Name: "x"}, true},
		{"metadata not loaded", &dpclient.PackageVersion{Found: true}, true},
		{"schemas not published yet", &dpclient.PackageVersion{Found: true, MetadataLoaded: true}, true},
		{"draft", &dpclient.PackageVersion{Found: true, Draft: true}, false},
		{"draft and not loaded", &dpclient.PackageVersion{Found: true, Draft: true, MetadataLoaded: false}, false},
		{"schemas do not compile", &dpclient.PackageVersion{Found: true, MetadataLoaded: true, CompileErr: errors.New("bad")}, false},
		{"installable", &dpclient.PackageVersion{Found: true, MetadataLoaded: true, Package: pkg}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := packageVersionPending(tt.v); got != tt.want {
				t.Fatalf("packageVersionPending = %v, want %v", got, tt.want)
			}
		})
	}
}
