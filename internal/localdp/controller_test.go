package localdp

import (
	"context"
	"fmt"
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
	if sum, _, _ := unstructured.NestedMap(obj.Object, "status", "summary"); len(sum) != 1 {
		t.Errorf("summary = %v, want only the state", sum)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "urls"); found {
		t.Errorf("status.urls set without a domain setting")
	}
	for _, typ := range []string{CondInstalled, CondReady, CondConfigurationApplied} {
		c := condition(obj, typ)
		if c == nil || c["status"] != "True" || c["reason"] != typ || c["observedGeneration"] != obj.GetGeneration() {
			t.Errorf("condition %s = %v, want True with reason %s for generation %d", typ, c, typ, obj.GetGeneration())
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
			if tip, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "tip"); !strings.Contains(tip, "spec.settings") {
				t.Errorf("summary.tip = %q, want it to name spec.settings", tip)
			}
			for _, typ := range []string{CondInstalled, CondReady} {
				if c := condition(obj, typ); c == nil || c["status"] != "False" || c["reason"] != ReasonSettingsInvalid {
					t.Errorf("condition %s = %v, want False with reason SettingsInvalid (nothing installed)", typ, c)
				}
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
	// A version no other run has seeded yet (the control plane is shared).
	version := fmt.Sprintf("v9.0.%d", nsCounter.Add(1))
	createApp(t, cp, application(ns, "later", version, nil))
	obj := waitCondition(t, cp, ns, "later", appliedWithReason(ReasonPending))
	if msg, _ := condition(obj, CondConfigurationApplied)["message"].(string); !strings.Contains(msg, "deckhouse-demo-"+version) {
		t.Errorf("message = %q, want it to name the package version", msg)
	}
	for _, typ := range []string{CondInstalled, CondReady} {
		if c := condition(obj, typ); c == nil || c["status"] != "False" || c["reason"] != ReasonPending {
			t.Errorf("condition %s = %v, want False with reason Pending", typ, c)
		}
	}
	if s, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "state"); s != StatePending {
		t.Errorf("summary.state = %q, want Pending", s)
	}
	seedDemo(t, cp, version)
	obj = waitCondition(t, cp, ns, "later", appliedWithReason(CondConfigurationApplied))
	if c := condition(obj, CondReady); c["status"] != "True" {
		t.Errorf("Ready = %v once the version is seeded", c)
	}
}

// updateSpec changes the Application's spec, retrying on conflicts.
func updateSpec(t *testing.T, cp *ControlPlane, ns, name string, change func(*unstructured.Unstructured)) {
	t.Helper()
	client := cp.Dynamic().Resource(ApplicationGVR).Namespace(ns)
	for {
		obj, err := client.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		change(obj)
		_, err = client.Update(context.Background(), obj, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatal(err)
		}
	}
}

func TestController_RejectedUpdateLeavesInstalledAndReady(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "keep", "v1.0.0", map[string]any{"replicas": int64(2)}))
	waitCondition(t, cp, ns, "keep", appliedWithReason(CondConfigurationApplied))
	updateSpec(t, cp, ns, "keep", func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, "Trace", "spec", "settings", "logLevel")
	})
	obj := waitCondition(t, cp, ns, "keep", appliedWithReason(ReasonSettingsInvalid))
	for _, typ := range []string{CondInstalled, CondReady} {
		if c := condition(obj, typ); c == nil || c["status"] != "True" {
			t.Errorf("condition %s = %v, want it still True: the last applied configuration stays in effect", typ, c)
		}
	}
	if r, _, _ := unstructured.NestedInt64(obj.Object, "status", "lastAppliedConfiguration", "replicas"); r != 2 {
		t.Errorf("lastAppliedConfiguration.replicas = %d, want 2", r)
	}
	sum, _, _ := unstructured.NestedStringMap(obj.Object, "status", "summary")
	if sum["state"] != StateFailed || !strings.Contains(sum["tip"], "stays in effect") {
		t.Errorf("summary = %v, want Failed with a tip saying the last configuration stays in effect", sum)
	}
}

func TestController_DomainSettingBecomesSimulatedURL(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	createApp(t, cp, application(ns, "web", "v1.0.0", map[string]any{"domain": "web.example.com"}))
	obj := waitCondition(t, cp, ns, "web", appliedWithReason(CondConfigurationApplied))
	urls, _, _ := unstructured.NestedSlice(obj.Object, "status", "urls")
	if got := simulatedURLsOf(urls); got != "https://web.example.com" {
		t.Fatalf("status.urls = %v, want https://web.example.com", urls)
	}
	updateSpec(t, cp, ns, "web", func(o *unstructured.Unstructured) {
		unstructured.RemoveNestedField(o.Object, "spec", "settings", "domain")
	})
	obj = waitCondition(t, cp, ns, "web", appliedWithReason(CondConfigurationApplied))
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "status", "urls"); found {
		t.Errorf("status.urls kept after the domain was removed: %v", obj.Object["status"])
	}
}

func TestController_SimulatedReadyDelay(t *testing.T) {
	cp := needControlPlane(t)
	seedDemo(t, cp, "v1.0.0")
	ns := newNamespace(t, cp)
	for _, tt := range []struct{ name, after string }{{"later", "2s"}, {"never", "never"}} {
		app := application(ns, tt.name, "v1.0.0", nil)
		app.SetAnnotations(map[string]string{AnnotationSimulateReadyAfter: tt.after})
		createApp(t, cp, app)
	}
	start := time.Now()
	for _, name := range []string{"later", "never"} {
		obj := waitCondition(t, cp, ns, name, appliedWithReason(CondConfigurationApplied))
		if c := condition(obj, CondReady); c["status"] != "False" || c["reason"] != ReasonPending {
			t.Errorf("%s: Ready = %v right after the apply, want False/Pending", name, c)
		}
		if c := condition(obj, CondInstalled); c["status"] != "True" {
			t.Errorf("%s: Installed = %v, want True", name, c)
		}
		if s, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "state"); s != StateUpdating {
			t.Errorf("%s: summary.state = %q, want Updating", name, s)
		}
	}
	obj := waitCondition(t, cp, ns, "later", func(o *unstructured.Unstructured) bool {
		c := condition(o, CondReady)
		return c != nil && c["status"] == "True"
	})
	// lastTransitionTime has whole seconds: Ready may come up to 1s early.
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("Ready=True after %s, want about 2s", waited)
	}
	if s, _, _ := unstructured.NestedString(obj.Object, "status", "summary", "state"); s != StateReady {
		t.Errorf("summary.state = %q after Ready, want Ready", s)
	}
	obj = waitCondition(t, cp, ns, "never", appliedWithReason(CondConfigurationApplied))
	if c := condition(obj, CondReady); c["status"] != "False" {
		t.Errorf("never: Ready = %v, want still False", c)
	}
}

func TestReadyDelay_ParsesDurationsAndNever(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		set   bool
		delay time.Duration
		never bool
	}{
		{set: false},
		{value: "3s", set: true, delay: 3 * time.Second},
		{value: " 1m ", set: true, delay: time.Minute},
		{value: "never", set: true, never: true},
		{value: "soon", set: true},
		{value: "-1s", set: true},
	}
	for _, tt := range tests {
		app := application("ns", "a", "v1.0.0", nil)
		if tt.set {
			app.SetAnnotations(map[string]string{AnnotationSimulateReadyAfter: tt.value})
		}
		if d, n := readyDelay(app); d != tt.delay || n != tt.never {
			t.Errorf("readyDelay(%q) = %s, %v; want %s, %v", tt.value, d, n, tt.delay, tt.never)
		}
	}
}

func TestSimulatedURLs_FirstHostLikeSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings map[string]any
		want     string
	}{
		{"none", map[string]any{"replicas": int64(1)}, ""},
		{"domain", map[string]any{"domain": "a.example.com", "host": "b.example.com"}, "https://a.example.com"},
		{"host", map[string]any{"host": "b.example.com"}, "https://b.example.com"},
		{"hostname", map[string]any{"hostname": " c.example.com "}, "https://c.example.com"},
		{"empty domain", map[string]any{"domain": ""}, ""},
		{"not a string", map[string]any{"domain": map[string]any{"name": "x"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := simulatedURLsOf(simulatedURLs(tt.settings)); got != tt.want {
				t.Errorf("url = %q, want %q", got, tt.want)
			}
		})
	}
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

// simulatedURLsOf is the url of a one-entry status.urls; "" when empty,
// "<n entries>" otherwise.
func simulatedURLsOf(urls []any) string {
	if len(urls) == 0 {
		return ""
	}
	if len(urls) > 1 {
		return fmt.Sprintf("<%d entries>", len(urls))
	}
	m, _ := urls[0].(map[string]any)
	u, _ := m["url"].(string)
	return u
}
