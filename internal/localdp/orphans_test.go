package localdp

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var configMapGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// TestController_DeleteRemovesLabelledOrphansAndKeepsKept: deleting an
// Application deletes (simulated) the objects of the package's
// orphanResources kinds that carry its instance label, and keeps those
// whose resource policy is keep, those of another instance, and cluster-
// scoped kinds.
func TestController_DeleteRemovesLabelledOrphansAndKeepsKept(t *testing.T) {
	cp := needControlPlane(t)
	ctx := context.Background()
	if err := cp.SeedPackageVersion(ctx, PackageVersionSeed{
		Repository: "deckhouse", Package: "orphans", Version: "v1.0.0", Dir: filepath.Join("testdata", "orphans"),
	}); err != nil {
		t.Fatal(err)
	}
	ns := newNamespace(t, cp)
	app := application(ns, "cache", "v1.0.0", nil)
	_ = unstructured.SetNestedField(app.Object, "orphans", "spec", "packageName")
	createApp(t, cp, app)
	waitCondition(t, cp, ns, "cache", appliedWithReason(CondConfigurationApplied))
	cms := cp.Dynamic().Resource(configMapGVR).Namespace(ns)
	mk := func(name string, labels, annotations map[string]string) {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
		cm.SetName(name)
		cm.SetLabels(labels)
		cm.SetAnnotations(annotations)
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mine := map[string]string{LabelInstance: "cache"}
	mk("orphan", mine, nil)
	mk("kept", mine, map[string]string{AnnotationHelmResourcePolicy: "keep"})
	mk("shared", mine, map[string]string{AnnotationOwnership: "anyone"})
	mk("other-instance", map[string]string{LabelInstance: "other"}, nil)

	if err := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns).Delete(ctx, "cache", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns).Get(ctx, "cache", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("application still present after delete (err %v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for name, wantGone := range map[string]bool{"orphan": true, "kept": false, "shared": false, "other-instance": false} {
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		gone := apierrors.IsNotFound(err) || (err == nil && cm.GetDeletionTimestamp() != nil)
		if gone != wantGone {
			t.Errorf("config map %s: gone = %v, want %v (err %v)", name, gone, wantGone, err)
		}
	}
}

// TestOutlivesRelease_PoliciesAndOwnership: the annotations that keep an
// object past its release, as DP reads them.
func TestOutlivesRelease_PoliciesAndOwnership(t *testing.T) {
	cases := []struct {
		a    map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{AnnotationHelmResourcePolicy: "keep"}, true},
		{map[string]string{AnnotationHelmResourcePolicy: "delete, skip-delete"}, true},
		{map[string]string{AnnotationWerfResourcePolicy: "delete", AnnotationHelmResourcePolicy: "keep"}, false},
		{map[string]string{AnnotationOwnership: " anyone "}, true},
		{map[string]string{AnnotationOwnership: "release"}, false},
	}
	for _, tc := range cases {
		if got := outlivesRelease(tc.a); got != tc.want {
			t.Errorf("outlivesRelease(%v) = %v, want %v", tc.a, got, tc.want)
		}
	}
}
