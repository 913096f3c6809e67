package localdp

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestController_AcceptedSettingsStoredWithDefaults(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "good", "v1.0.0", map[string]any{"replicas": int64(2)}))
	obj := waitCondition(t, cp, ns, "good", appliedWithReason(CondConfigurationApplied))

	last, _, _ := unstructured.NestedMap(obj.Object, "status", "lastAppliedConfiguration")
	want := map[string]any{
		"replicas": int64(2), "maxReplicas": int64(3), "logLevel": "Info",
		"resources": map[string]any{"memory": "128Mi", "cpu": "100m"},
	}
	if !reflect.DeepEqual(last, want) {
		t.Errorf("lastAppliedConfiguration = %v, want %v", last, want)
	}
	if v, _, _ := unstructured.NestedString(obj.Object, "status", "currentVersion", "version"); v != "v1.0.0" {
		t.Errorf("currentVersion.version = %q", v)
	}
	if s, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "state"); s != "Ready" {
		t.Errorf("summary.state = %q", s)
	}
	for _, typ := range []string{CondInstalled, CondReady, CondConfigurationApplied} {
		c := condition(obj, typ)
		if c == nil || c["status"] != "True" || c["reason"] != typ {
			t.Errorf("condition %s = %v, want True with reason %s", typ, c, typ)
		}
	}
	if l := obj.GetLabels(); l[LabelPackage] != "demo" || l[LabelInstance] != "good" {
		t.Errorf("labels = %v", l)
	}
	if f := obj.GetFinalizers(); len(f) != 1 || f[0] != Finalizer {
		t.Errorf("finalizers = %v", f)
	}
}

func TestController_RejectedSettingsAreSettingsInvalid(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	tests := []struct {
		name     string
		settings map[string]any
		want     string
	}{
		{"cel-rule", map[string]any{"replicas": int64(5), "maxReplicas": int64(2)}, "replicas must not exceed maxReplicas"},
		{"undeclared", map[string]any{"unknownField": "x"}, "unknownField"},
		{"enum", map[string]any{"logLevel": "Trace"}, "logLevel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			createApp(t, cp, application(ns, tt.name, "v1.0.0", tt.settings))
			obj := waitCondition(t, cp, ns, tt.name, appliedWithReason(ReasonSettingsInvalid))
			c := condition(obj, CondConfigurationApplied)
			msg, _ := c["message"].(string)
			if c["status"] != "False" || !strings.HasPrefix(msg, "validate settings: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("ConfigurationApplied = %v, want False with a message naming %q", c, tt.want)
			}
			if s, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "state"); s != "Failed" {
				t.Errorf("summary.state = %q, want Failed", s)
			}
			if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "currentVersion"); found {
				t.Errorf("currentVersion set on a rejected installation")
			}
		})
	}
}

func TestController_GrantDefaultInjectedAndUnavailableValueRejected(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	if err := cp.SeedAvailableClusterResource(context.Background(), ns, "storageclasses", "fast", []string{"fast", "slow"}); err != nil {
		t.Fatal(err)
	}
	createApp(t, cp, application(ns, "granted", "v1.0.0", nil))
	obj := waitCondition(t, cp, ns, "granted", appliedWithReason(CondConfigurationApplied))
	if sc, _, _ := unstructured.NestedString(obj.Object, "status", "lastAppliedConfiguration", "storageClass"); sc != "fast" {
		t.Errorf("storageClass = %q, want the project default fast", sc)
	}

	createApp(t, cp, application(ns, "ungranted", "v1.0.0", map[string]any{"storageClass": "gold"}))
	obj = waitCondition(t, cp, ns, "ungranted", appliedWithReason(ReasonSettingsInvalid))
	if msg, _ := condition(obj, CondConfigurationApplied)["message"].(string); !strings.Contains(msg, "storageClass") {
		t.Errorf("message = %q, want it to name storageClass", msg)
	}
}

func TestController_UpdateReappliesNewGeneration(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "upd", "v1.0.0", map[string]any{"replicas": int64(1)}))
	obj := waitCondition(t, cp, ns, "upd", appliedWithReason(CondConfigurationApplied))
	client := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns)
	for {
		_ = unstructured.SetNestedField(obj.Object, int64(3), "spec", "settings", "replicas")
		_, err := client.Update(context.Background(), obj, metav1.UpdateOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsConflict(err) {
			t.Fatal(err)
		}
		if obj, err = client.Get(context.Background(), "upd", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	obj = waitCondition(t, cp, ns, "upd", appliedWithReason(CondConfigurationApplied))
	if r, _, _ := unstructured.NestedInt64(obj.Object, "status", "lastAppliedConfiguration", "replicas"); r != 3 {
		t.Errorf("replicas = %d, want 3", r)
	}
}

func TestController_MissingVersionPendingUntilSeeded(t *testing.T) {
	cp := needControlPlane(t)
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "later", "v9.0.0", nil))
	obj := waitCondition(t, cp, ns, "later", appliedWithReason(ReasonPending))
	if msg, _ := condition(obj, CondConfigurationApplied)["message"].(string); !strings.Contains(msg, "deckhouse-demo-v9.0.0") {
		t.Errorf("message = %q, want it to name the package version", msg)
	}
	seedDemo(t, cp, "v9.0.0")
	waitCondition(t, cp, ns, "later", appliedWithReason(CondConfigurationApplied))
}

func TestController_DraftVersionRequirementsUnmet(t *testing.T) {
	cp := needControlPlane(t)
	if err := cp.SeedPackageVersion(context.Background(), PackageVersionSeed{
		Repository: "deckhouse", Package: "demo", Version: "v0.0.1-draft", Dir: "testdata/demo", Draft: true,
	}); err != nil {
		t.Fatal(err)
	}
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "draft", "v0.0.1-draft", nil))
	waitCondition(t, cp, ns, "draft", appliedWithReason(ReasonRequirementsUnmet))
}

func TestController_DeleteRemovesFinalizer(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "gone", "v1.0.0", nil))
	waitCondition(t, cp, ns, "gone", func(o *unstructured.Unstructured) bool { return len(o.GetFinalizers()) == 1 })
	client := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns)
	if err := client.Delete(context.Background(), "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := client.Get(context.Background(), "gone", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("application still present after delete (err %v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
