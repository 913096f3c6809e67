package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/hashicorp/terraform-plugin-log/tfsdklogtest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"pgregory.net/rapid"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/localdp"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/application"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/protocol"
)

// Generated sequences of what happens to one deckhouse_application: the
// test acts as the CLI (ValidateResourceConfig, PlanResourceChange twice
// for an apply, ApplyResourceChange, ReadResource, ImportResourceState, a
// destroy the CLI plans itself), with the state, private state and
// identity carried between commands and a new provider process for each,
// against the local control plane, while other writers edit the
// Application (server-side apply under managers of their own, and Update
// as kubectl edit does) and DP applies, lags behind or rejects. After
// every step it checks:
//
//   - no value ever given in sensitive_settings, and no value another
//     writer put under a key the configuration does not set, is in the
//     state, the private state, a plan, a diagnostic or a log line;
//   - an apply DP applied is followed by an empty plan of the same
//     configuration;
//   - the applied state is the plan where the plan was known, the apply's
//     final plan agrees with the first one, and a plan keeps what the
//     configuration sets;
//   - after an apply, every value of the configuration is in the cluster
//     and no other writer's value is gone.
//
// RAPID_CHECKS and RAPID_STEPS (or -rapid.checks, -rapid.steps) size the
// run; `make test-sequences` runs a long one. A failing sequence is kept
// as a case of seqRegressions.

// seqSettingsSchema is the settings schema of the package the sequences
// install: string fields whose values can be scanned for, a map others may
// add keys to, and nested objects.
const seqSettingsSchema = `
type: object
properties:
  replicas:
    type: integer
    default: 1
    minimum: 1
  domain:
    type: string
  logLevel:
    type: string
    enum: [Info, Debug]
    default: Info
  auth:
    type: object
    default: {}
    properties:
      user:
        type: string
        default: admin
      password:
        type: string
      token:
        type: string
  podLabels:
    type: object
    additionalProperties:
      type: string
  extra:
    type: object
    properties:
      a:
        type: string
      b:
        type: string
`

// The string settings the sequences write, plain or secret, and the keys
// of podLabels; the labels and annotations keys.
var (
	seqStringPaths = [][]string{{"domain"}, {"auth", "user"}, {"auth", "password"}, {"auth", "token"},
		{"podLabels", "app"}, {"podLabels", "owner"}, {"extra", "a"}, {"extra", "b"}}
	seqLabelKeys      = []string{"team", "tier", "owner"}
	seqAnnotationKeys = []string{"example.com/a", "example.com/b", "example.com/note"}
	seqVersions       = []string{"v1.0.0", "v1.1.0"}
)

// knownDefects are the defects this tree still has, each with the kinds of
// violation it causes (seqMachine.violation names the kind of each). The
// generated run logs a violation of these kinds instead of failing, and the
// regression cases of these defects are skipped. Remove a defect once its
// fix is merged: its violations fail again, and its cases run.
var knownDefects = map[int][]string{}

// knownDefect returns the known defect that causes violations of kind, or 0.
func knownDefect(kind string) int {
	for n, kinds := range knownDefects {
		for _, k := range kinds {
			if k == kind {
				return n
			}
		}
	}
	return 0
}

// seqConfig is one configuration of the resource.
type seqConfig struct {
	Version          string
	Settings         map[string]any // nil: not set; empty: settings = {}
	Sensitive        map[string]any // nil: not set
	SensitiveVersion string
	Labels           map[string]string
	Annotations      map[string]string
	ReleaseChannel   string
	Maintenance      bool
	UpdateMode       string
	Replicas         int64 // > 0: one resource_requests entry of Deployment "web"
	NoWait           bool
	UnknownAtPlan    bool // settings are known only at apply
}

// Operations of a step.
const (
	seqApply   = "apply"   // plan and apply Config
	seqPlan    = "plan"    // plan Config, keep nothing
	seqRefresh = "refresh" // apply -refresh-only
	seqDestroy = "destroy"
	seqForget  = "forget"  // state rm
	seqImport  = "import"  // Mode: import_settings
	seqForeign = "foreign" // Mode: apply, update or create; Path and Value: the field written
	seqDP      = "dp"      // Mode: lag, apply or reject
	seqWebhook = "webhook" // Mode: refuse (DP's webhook refuses every change of spec) or allow
	seqForce   = "force"   // the provider's force_conflicts is true from here on
)

// seqStep is one step of a sequence.
type seqStep struct {
	Op     string
	Config seqConfig
	Mode   string
	Path   []string // settings.<path>, labels.<key>, annotations.<key>, spec.<field>
	Value  string
}

// String is the step as a Go literal of its non-zero fields, for a
// regression case.
func (s seqStep) String() string { return literal(reflect.ValueOf(s)) }

func literal(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Struct:
		var fields []string
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); !f.IsZero() {
				fields = append(fields, v.Type().Field(i).Name+": "+literal(f))
			}
		}
		return v.Type().Name() + "{" + strings.Join(fields, ", ") + "}"
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var elems []string
		for _, k := range keys {
			elems = append(elems, fmt.Sprintf("%q: %s", k.String(), literal(v.MapIndex(k))))
		}
		return strings.ReplaceAll(v.Type().String(), "interface {}", "any") + "{" + strings.Join(elems, ", ") + "}"
	case reflect.Slice:
		var elems []string
		for i := 0; i < v.Len(); i++ {
			elems = append(elems, literal(v.Index(i)))
		}
		return strings.ReplaceAll(v.Type().String(), "interface {}", "any") + "{" + strings.Join(elems, ", ") + "}"
	case reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		inner := v.Elem()
		if inner.Kind() == reflect.Int64 {
			return fmt.Sprintf("int64(%d)", inner.Int())
		}
		return literal(inner)
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprintf("%v", v.Interface())
}

// seqRegressions are the sequences the generated runs have found failing,
// each run as given with the shortcuts on and off, every violation failing.
// A case of a defect in knownDefects is skipped.
var seqRegressions = []struct {
	name   string
	defect int
	steps  []seqStep
}{
	{name: "SettingsUnknownAtPlan_EffectiveSettingsUnknown", defect: 4, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{}, UnknownAtPlan: true}},
	}},
	{name: "SecretRotatedWithoutWait_NotInLastAppliedSettings", defect: 2, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"podLabels": map[string]any{"app": "sec-3kj1x0dy"}}, SensitiveVersion: "ver-1", NoWait: true}},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"auth": map[string]any{"token": "sec-6o221193"}}, SensitiveVersion: "ver-2", NoWait: true}},
	}},
	{name: "SecretRotatedWhileDPLagsAfterARejection_NotStoredOrQuoted", defect: 2, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"extra": map[string]any{"a": "sec-513xuetq"}}, SensitiveVersion: "ver-1"}},
		{Op: seqDP, Mode: "reject"},
		{Op: seqDP, Mode: "lag"},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"auth": map[string]any{"token": "sec-1027ur1v"}}, SensitiveVersion: "ver-2"}},
	}},
	{name: "ForeignReleaseChannel_NotInTheState", defect: 1, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.1.0", Labels: map[string]string{"tier": "cfg-x411x1x7"}}},
		{Op: seqForeign, Mode: "apply", Path: []string{"spec", "releaseChannel"}, Value: "fgn-0h3x000c"},
		{Op: seqRefresh},
	}},
	{name: "RefusedWrite_DoesNotQuoteAnotherManagersValue", defect: 3, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"replicas": int64(1)}}},
		{Op: seqForeign, Mode: "apply", Path: []string{"settings", "auth", "password"}, Value: "fgn-or1810us"},
		{Op: seqWebhook, Mode: "refuse"},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"replicas": int64(2)}}},
	}},
	{name: "KeyChangedByKubectlEdit_DriftShown", defect: 6, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"domain": "cfg-0d0m0a0n"}}},
		{Op: seqForeign, Mode: "update", Path: []string{"settings", "domain"}, Value: "fgn-0d0r0i0f"},
		{Op: seqRefresh},
	}},
	{name: "MapNoLongerWritten_KubectlEditKeyStays", defect: 8, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"podLabels": map[string]any{"app": "cfg-0a0p0p00"}}}},
		{Op: seqForeign, Mode: "update", Path: []string{"settings", "podLabels", "owner"}, Value: "fgn-00o0w0n0"},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"replicas": int64(1)}}},
	}},
	{name: "SettingsEmptied_WrittenAsAnEmptyObject", defect: 7, steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"replicas": int64(2)}}},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{}}},
	}},
	// The ownership warning names another writer's resource_requests entry
	// by its keys (kind and name), as it names settings keys; its values
	// stay out.
	{name: "ForeignResourceRequestsEntry_NamedByItsKeys", steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", ReleaseChannel: "cfg-dzr0sdzc", Maintenance: true, Replicas: 2}},
		{Op: seqForeign, Mode: "update", Path: []string{"spec", "resourceRequests"}, Value: "fgn-00000000"},
		{Op: seqForeign, Mode: "update", Path: []string{"settings", "domain"}, Value: "fgn-0d0r0i0f"},
		{Op: seqRefresh},
		{Op: seqPlan, Config: seqConfig{Version: "v1.0.0", ReleaseChannel: "cfg-dzr0sdzc", Maintenance: true, Replicas: 2}},
	}},
	// Another writer's values go with the Application a destroy deleted:
	// the one an apply creates afterwards does not hold them.
	{name: "DestroyedThenCreated_OtherWritersValuesWentWithTheObject", steps: []seqStep{
		{Op: seqForeign, Mode: "create", Path: []string{"settings", "domain"}, Value: "fgn-vket3702"},
		{Op: seqImport, Mode: "read"},
		{Op: seqDestroy},
		{Op: seqDP, Mode: "apply"},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"replicas": int64(1)}}},
	}},
	// A secret an earlier configuration wrote under this field manager, then
	// forgotten (state rm) and imported: the first apply after the import
	// keeps DP's record of the earlier generation out of
	// last_applied_settings.
	{name: "ImportedAfterStateRm_EarlierSecretNotInLastAppliedSettings", steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"extra": map[string]any{"b": "sec-1274nb22"}}, SensitiveVersion: "ver-4017jk3k"}},
		{Op: seqForget},
		{Op: seqImport, Mode: "omit"},
		{Op: seqDP, Mode: "lag"},
		{Op: seqApply, Config: seqConfig{Version: "v1.1.0", Replicas: 2, NoWait: true}},
	}},
	// DP's webhook refuses the removal of the keys an emptied map held,
	// quoting the settings: the refusal carries no secret.
	{name: "RefusedRemovalBeforeTheApply_QuotesNoSecret", steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.1.0", Settings: map[string]any{"auth": map[string]any{"token": "cfg-c8f13i3a"}, "extra": map[string]any{"a": "cfg-e1wz952k"}}, Sensitive: map[string]any{"domain": "sec-hoxoxlap"}, SensitiveVersion: "ver-6wl4n1l2"}},
		{Op: seqWebhook, Mode: "refuse"},
		{Op: seqApply, Config: seqConfig{Version: "v1.1.0", Settings: map[string]any{"auth": map[string]any{"token": "cfg-c8f13i3a"}, "extra": map[string]any{}}, SensitiveVersion: "ver-40y2q0g3"}},
	}},
	// A create whose wait timed out left no state; the next create adopts
	// it with empty settings, written as none instead of as null.
	{name: "CreateAdoptsItsTimedOutCreate_EmptySettingsNotNull", steps: []seqStep{
		{Op: seqDP, Mode: "lag"},
		{Op: seqApply, Config: seqConfig{Version: "v1.1.0", Settings: map[string]any{"auth": map[string]any{"user": "cfg-57s1kx00"}}}},
		{Op: seqApply, Config: seqConfig{Version: "v1.1.0", Sensitive: map[string]any{}, SensitiveVersion: "ver-0cdqcpbg"}},
	}},
	// DP rejected a generation it had held back, quoting its secret; a
	// write rotated the secret before DP applied anything newer. Neither spec.settings nor
	// DP's record holds the rejected value any more: DP's text about that
	// generation is withheld. (Found after a destroy that timed out, an
	// import and a rotation.)
	{name: "RejectedGenerationReplaced_ItsTextWithheld", steps: []seqStep{
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"domain": "sec-0a1b2c3d"}, SensitiveVersion: "ver-1"}},
		{Op: seqDP, Mode: "lag"},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"domain": "sec-62pae5z2"}, SensitiveVersion: "ver-2", NoWait: true}},
		{Op: seqDP, Mode: "reject"},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Sensitive: map[string]any{"domain": "sec-104mizjr"}, SensitiveVersion: "ver-3", NoWait: true}},
		{Op: seqRefresh},
	}},
	{name: "ForeignKeyTakenOver_EarlierRecordNotInLastAppliedSettings", defect: 9, steps: []seqStep{
		{Op: seqForce},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"replicas": int64(1)}}},
		{Op: seqForeign, Mode: "apply", Path: []string{"settings", "extra", "a"}, Value: "fgn-1205n3n1"},
		{Op: seqDP, Mode: "apply"},
		{Op: seqApply, Config: seqConfig{Version: "v1.0.0", Settings: map[string]any{"replicas": int64(1), "extra": map[string]any{"a": "cfg-p975vf10"}}, NoWait: true}},
	}},
}

// TestAccApplicationSequences_KeepTheStateRules runs generated sequences.
func TestAccApplicationSequences_KeepTheStateRules(t *testing.T) {
	e := newSeqEnv(t)
	boundSequences()
	var n atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		m := newSeqMachine(rt, e, fmt.Sprintf("s%d", n.Add(1)), shortcutsEnabled() && rapid.Bool().Draw(rt, "shortcuts"), false)
		m.force = rapid.Bool().Draw(rt, "force_conflicts")
		defer m.close()
		rt.Repeat(m.actions())
	})
}

// TestAccApplicationSequences_Regressions replays every failing sequence
// the generated runs have found.
func TestAccApplicationSequences_Regressions(t *testing.T) {
	e := newSeqEnv(t)
	for i, tc := range seqRegressions {
		for _, shortcuts := range []bool{true, false} {
			name := tc.name + map[bool]string{true: "/shortcuts_on", false: "/shortcuts_off"}[shortcuts]
			t.Run(name, func(t *testing.T) {
				if d, ok := knownDefects[tc.defect]; ok && tc.defect != 0 {
					t.Skipf("defect %d is known on this tree (%v): remove it from knownDefects once fixed", tc.defect, d)
				}
				if shortcuts && !shortcutsEnabled() {
					t.Skip("shortcuts off by " + protocol.EnvVar)
				}
				m := newSeqMachine(t, e, fmt.Sprintf("r%d%s", i, map[bool]string{true: "a", false: "b"}[shortcuts]), shortcuts, true)
				defer m.close()
				for _, s := range tc.steps {
					m.run(s)
				}
			})
		}
	}
}

// The size of the generated run unless RAPID_CHECKS, RAPID_STEPS or the
// flags -rapid.checks, -rapid.steps say otherwise: a few short sequences.
const (
	seqChecks = "6"
	seqSteps  = "12"
)

// boundSequences sets the size of the generated run.
func boundSequences() {
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for name, def := range map[string]string{"checks": seqChecks, "steps": seqSteps} {
		if !given["rapid."+name] && os.Getenv("RAPID_"+strings.ToUpper(name)) == "" {
			_ = flag.Set("rapid."+name, def)
		}
	}
}

// newSeqEnv is the acceptance environment of the sequences: a namespace and
// the package of seqSettingsSchema at each of seqVersions.
func newSeqEnv(t *testing.T) *appEnv {
	opts := []accOption{withPackageSuffix("-seq")}
	for _, v := range seqVersions {
		opts = append(opts, withPackageVersion(localdp.PackageVersionSeed{Version: v, SettingsSchema: []byte(seqSettingsSchema)}))
	}
	e := newAccEnv(t, opts...)
	t.Cleanup(func() { e.cp.Release(e.namespace) })
	return e
}

// syncBuffer is the provider's log output.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) from(off int) ([]byte, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := b.buf.Bytes()
	return append([]byte(nil), all[off:]...), len(all)
}

// liveValue is a value another writer put in the Application that must
// stay there.
type liveValue struct {
	path  []string
	value any
	uid   string // of the Application it was written into
}

// seqMachine is the CLI, its working folder and what the sequence wrote.
type seqMachine struct {
	t         rapid.TB
	e         *appEnv
	name      string
	shortcuts bool
	strict    bool // every violation fails (the regression cases)
	force     bool // the provider's force_conflicts

	importMode string // the provider's import_settings
	logs       *syncBuffer
	logOff     int

	resSchema    *tfprotov6.Schema
	stateType    tftypes.Type
	providerType tftypes.Type

	// The CLI's state of the resource; state nil when none.
	state    *tfprotov6.DynamicValue
	private  []byte
	identity *tfprotov6.ResourceIdentityData
	config   seqConfig // the configuration of the last apply
	written  bool      // config has been applied

	secrets      map[string]bool      // every value given in sensitive_settings
	foreign      map[string]bool      // values others wrote under keys the configuration does not set
	live         map[string]liveValue // values others wrote that must stay, by path
	managers     int
	held         bool // DP lags
	refusing     bool // DP's webhook refuses changes of spec
	cancel       context.CancelFunc
	imported     bool // imported, not applied since
	importedRead bool // imported with import_settings = "read", not applied since
}

func newSeqMachine(t rapid.TB, e *appEnv, name string, shortcuts, strict bool) *seqMachine {
	m := &seqMachine{t: t, e: e, name: name, shortcuts: shortcuts, strict: strict, importMode: "omit",
		logs: &syncBuffer{}, secrets: map[string]bool{}, foreign: map[string]bool{}, live: map[string]liveValue{}}
	t.Logf("sequence of Application %s/%s, shortcuts %v", e.namespace, name, shortcuts)
	return m
}

// close releases DP and removes the Application.
func (m *seqMachine) close() {
	if m.cancel != nil {
		m.cancel()
	}
	m.e.cp.Release(m.e.namespace)
	if m.refusing {
		m.webhook(false)
	}
	_ = m.apps().Delete(context.Background(), m.name, metav1.DeleteOptions{})
}

func (m *seqMachine) apps() dynamic.ResourceInterface {
	return m.e.cp.Dynamic().Resource(dpapi.ApplicationGVR).Namespace(m.e.namespace)
}

// actions are the named actions of the generated sequences.
func (m *seqMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"apply":   func(t *rapid.T) { m.run(seqStep{Op: seqApply, Config: m.drawConfig(t)}) },
		"reapply": func(t *rapid.T) { m.skipUnless(t, m.written); m.run(seqStep{Op: seqApply, Config: m.config}) },
		"plan":    func(t *rapid.T) { m.run(seqStep{Op: seqPlan, Config: m.drawConfig(t)}) },
		"refresh": func(t *rapid.T) { m.skipUnless(t, m.state != nil); m.run(seqStep{Op: seqRefresh}) },
		"destroy": func(t *rapid.T) { m.skipUnless(t, m.state != nil); m.run(seqStep{Op: seqDestroy}) },
		"forget":  func(t *rapid.T) { m.skipUnless(t, m.state != nil); m.run(seqStep{Op: seqForget}) },
		"import": func(t *rapid.T) {
			m.skipUnless(t, m.state == nil && m.object() != nil)
			m.run(seqStep{Op: seqImport, Mode: rapid.SampledFrom([]string{"omit", "read"}).Draw(t, "import_settings")})
		},
		"foreign": func(t *rapid.T) {
			obj := m.object()
			m.skipUnless(t, obj != nil && obj.GetDeletionTimestamp() == nil)
			path, value := m.drawForeign(t)
			m.run(seqStep{Op: seqForeign, Mode: rapid.SampledFrom([]string{"apply", "update"}).Draw(t, "how"), Path: path, Value: value})
		},
		"foreignCreate": func(t *rapid.T) {
			m.skipUnless(t, m.object() == nil)
			path := rapid.SampledFrom(seqStringPaths).Draw(t, "path")
			m.run(seqStep{Op: seqForeign, Mode: "create", Path: append([]string{"settings"}, path...), Value: m.token(t, "fgn")})
		},
		"webhook": func(t *rapid.T) {
			m.run(seqStep{Op: seqWebhook, Mode: map[bool]string{true: "allow", false: "refuse"}[m.refusing]})
		},
		"dp": func(t *rapid.T) {
			m.run(seqStep{Op: seqDP, Mode: rapid.SampledFrom([]string{"lag", "apply", "reject"}).Draw(t, "verdict")})
		},
	}
}

func (m *seqMachine) skipUnless(t *rapid.T, ok bool) {
	if !ok {
		t.Skip("not possible now")
	}
}

// token is a distinctive value: prefix, a dash and eight characters.
func (m *seqMachine) token(t *rapid.T, prefix string) string {
	return prefix + "-" + rapid.StringMatching(`[a-z0-9]{8}`).Draw(t, prefix)
}

// drawConfig draws a configuration, often a change of the last one.
func (m *seqMachine) drawConfig(t *rapid.T) seqConfig {
	c := m.config
	if !m.written || rapid.IntRange(0, 3).Draw(t, "fresh") == 0 {
		c = seqConfig{Version: seqVersions[0]}
	}
	c.Version = rapid.SampledFrom(seqVersions).Draw(t, "version")
	c.UnknownAtPlan = rapid.IntRange(0, 5).Draw(t, "unknown") == 0
	c.NoWait = rapid.Bool().Draw(t, "no_wait")
	switch rapid.IntRange(0, 3).Draw(t, "change") {
	case 0: // settings
		c.Settings, c.Sensitive = m.drawSettings(t, c.Sensitive)
	case 1: // sensitive settings, with a new version or not
		_, c.Sensitive = m.drawSettings(t, nil)
		c.Settings = withoutPaths(c.Settings, c.Sensitive)
		if rapid.IntRange(0, 3).Draw(t, "same_version") > 0 {
			c.SensitiveVersion = m.token(t, "ver")
		}
	case 2: // metadata
		c.Labels = m.drawMap(t, "labels", seqLabelKeys, c.Labels)
		c.Annotations = m.drawMap(t, "annotations", seqAnnotationKeys, c.Annotations)
	case 3: // typed spec fields
		c.ReleaseChannel = ""
		if rapid.Bool().Draw(t, "channel") {
			c.ReleaseChannel = m.token(t, "cfg")
		}
		c.Maintenance = rapid.Bool().Draw(t, "maintenance")
		c.UpdateMode = rapid.SampledFrom([]string{"", "Auto", "Manual"}).Draw(t, "update_mode")
		c.Replicas = int64(rapid.IntRange(0, 2).Draw(t, "replicas"))
	}
	if c.Sensitive != nil && c.SensitiveVersion == "" {
		c.SensitiveVersion = m.token(t, "ver")
	}
	return c
}

// drawSettings draws settings and sensitive settings on separate paths.
func (m *seqMachine) drawSettings(t *rapid.T, keepSensitive map[string]any) (settings, sensitive map[string]any) {
	switch rapid.IntRange(0, 5).Draw(t, "settings_shape") {
	case 0:
		settings = nil
	case 1:
		settings = map[string]any{}
	default:
		settings = map[string]any{}
		if rapid.Bool().Draw(t, "replicas_set") {
			settings["replicas"] = int64(rapid.IntRange(1, 3).Draw(t, "replicas"))
		}
		if rapid.Bool().Draw(t, "loglevel_set") {
			settings["logLevel"] = rapid.SampledFrom([]string{"Info", "Debug"}).Draw(t, "logLevel")
		}
		for _, p := range seqStringPaths {
			if rapid.IntRange(0, 2).Draw(t, "set_"+strings.Join(p, ".")) == 0 {
				setPath(settings, p, m.token(t, "cfg"))
			}
		}
		if rapid.IntRange(0, 4).Draw(t, "empty_podlabels") == 0 {
			settings["podLabels"] = map[string]any{}
		}
	}
	sensitive = keepSensitive
	if keepSensitive == nil && rapid.Bool().Draw(t, "sensitive_set") {
		sensitive = map[string]any{}
		for _, p := range seqStringPaths {
			if rapid.IntRange(0, 2).Draw(t, "secret_"+strings.Join(p, ".")) == 0 {
				setPath(sensitive, p, m.token(t, "sec"))
			}
		}
	}
	return withoutPaths(settings, sensitive), sensitive
}

func (m *seqMachine) drawMap(t *rapid.T, label string, keys []string, prior map[string]string) map[string]string {
	if rapid.IntRange(0, 3).Draw(t, label+"_null") == 0 {
		return nil
	}
	out := map[string]string{}
	for _, k := range keys {
		if rapid.Bool().Draw(t, label+"_"+k) {
			v := prior[k]
			if v == "" || rapid.Bool().Draw(t, label+"_new_"+k) {
				v = m.token(t, "cfg")
			}
			out[k] = v
		}
	}
	return out
}

// drawForeign draws a field another writer sets and its value.
func (m *seqMachine) drawForeign(t *rapid.T) ([]string, string) {
	switch rapid.IntRange(0, 6).Draw(t, "foreign_field") {
	case 0:
		return []string{"labels", rapid.SampledFrom(seqLabelKeys).Draw(t, "label")}, m.token(t, "fgn")
	case 1:
		return []string{"annotations", rapid.SampledFrom(seqAnnotationKeys).Draw(t, "annotation")}, m.token(t, "fgn")
	case 2:
		return []string{"spec", "releaseChannel"}, m.token(t, "fgn")
	case 3:
		return []string{"spec", rapid.SampledFrom([]string{"maintenance", "updateMode", "resourceRequests"}).Draw(t, "spec_field")}, m.token(t, "fgn")
	default:
		return append([]string{"settings"}, rapid.SampledFrom(seqStringPaths).Draw(t, "path")...), m.token(t, "fgn")
	}
}

// run runs one step.
func (m *seqMachine) run(s seqStep) {
	m.t.Helper()
	m.t.Logf("step: %s", s)
	// A step that outlives every deadline of its commands is a hang.
	watchdog := time.AfterFunc(3*time.Minute, func() {
		panic(fmt.Sprintf("step %s of Application %s/%s did not end within 3 minutes", s, m.e.namespace, m.name))
	})
	defer watchdog.Stop()
	switch s.Op {
	case seqApply:
		m.apply(s.Config)
	case seqPlan:
		m.planOnly(s.Config)
	case seqRefresh:
		m.refreshOnly()
	case seqDestroy:
		m.destroy()
	case seqForget:
		m.state, m.private, m.identity = nil, nil, nil
	case seqImport:
		m.importApp(s.Mode)
	case seqForeign:
		m.foreignWrite(s.Mode, s.Path, s.Value)
	case seqDP:
		m.dp(s.Mode)
	case seqWebhook:
		m.webhook(s.Mode == "refuse")
	case seqForce:
		m.force = true
	default:
		m.t.Fatalf("unknown step %q", s.Op)
	}
	m.scanLogs()
}

// violation fails the sequence, unless the kind is a known defect's (and
// the run is not strict): then it is logged.
func (m *seqMachine) violation(kind, format string, args ...any) {
	m.t.Helper()
	msg := fmt.Sprintf(format, args...)
	if n := knownDefect(kind); n != 0 && !m.strict {
		m.t.Logf("known defect %d (%s): %s", n, kind, msg)
		return
	}
	m.t.Fatalf("violation %s: %s", kind, msg)
}

// ---- the provider, as the CLI runs it

// open starts a provider process: its schema, then its configuration.
func (m *seqMachine) open() (tfprotov6.ProviderServer, context.Context) {
	m.t.Helper()
	s := newProtocolServer("test", m.shortcuts)
	if m.cancel != nil {
		m.cancel()
	}
	// A command that hangs fails with its own errors instead of the test
	// (the waits of the configurations are 2 s; an imported state waits as
	// long as its defaults say).
	base, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	m.cancel = cancel
	ctx := tfsdklogtest.RootLogger(base, m.logs)
	ctx = tflogtest.RootLogger(ctx, m.logs)
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		m.t.Fatal(err)
	}
	if m.resSchema == nil {
		m.resSchema = schemas.ResourceSchemas[application.TypeName]
		m.stateType = m.resSchema.ValueType()
		m.providerType = schemas.Provider.ValueType()
	}
	cfg := m.dv(m.providerType, map[string]any{
		"config_path": m.e.cp.KubeconfigPath(), "import_settings": m.importMode, "force_conflicts": m.force,
	})
	resp, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: cfg,
		ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{DeferralAllowed: true}})
	if err != nil {
		m.t.Fatal(err)
	}
	m.diagnostics("configure", resp.Diagnostics)
	return s, ctx
}

// dv encodes a Go value of typ.
func (m *seqMachine) dv(typ tftypes.Type, v any) *tfprotov6.DynamicValue {
	m.t.Helper()
	d, err := tfprotov6.NewDynamicValue(typ, tfValue(typ, v))
	if err != nil {
		m.t.Fatalf("encoding %v: %v", v, err)
	}
	return &d
}

func (m *seqMachine) decode(d *tfprotov6.DynamicValue) tftypes.Value {
	m.t.Helper()
	if d == nil {
		return tftypes.NewValue(m.stateType, nil)
	}
	v, err := d.Unmarshal(m.stateType)
	if err != nil {
		m.t.Fatal(err)
	}
	return v
}

// configValue is the configuration as the CLI sends it; atPlan: values
// known only at apply are unknown.
func (m *seqMachine) configValue(c seqConfig, atPlan bool) *tfprotov6.DynamicValue {
	a := map[string]any{
		"name": m.name, "namespace": m.e.namespace, "package_name": m.e.pkg, "package_repository_name": m.e.repository,
		"package_version": c.Version,
		"timeouts":        map[string]any{"create": "2s", "update": "2s", "delete": "2s"},
	}
	if c.Settings != nil {
		a["settings"] = c.Settings
		if atPlan && c.UnknownAtPlan {
			a["settings"] = unknownValue{}
		}
	}
	if c.Sensitive != nil {
		a["sensitive_settings"] = c.Sensitive
	}
	if c.SensitiveVersion != "" {
		a["sensitive_settings_version"] = c.SensitiveVersion
	}
	if c.Labels != nil {
		a["labels"] = stringsToAny(c.Labels)
	}
	if c.Annotations != nil {
		a["annotations"] = stringsToAny(c.Annotations)
	}
	if c.ReleaseChannel != "" {
		a["release_channel"] = c.ReleaseChannel
	}
	if c.Maintenance {
		a["maintenance"] = "NoResourceReconciliation"
	}
	if c.UpdateMode != "" {
		a["update"] = map[string]any{"mode": c.UpdateMode}
	}
	if c.Replicas > 0 {
		a["resource_requests"] = []any{map[string]any{"kind": "Deployment", "name": "web", "replicas": c.Replicas}}
	}
	if c.NoWait {
		a["wait"] = false
	}
	return m.dv(m.stateType, a)
}

// proposed is the CLI's proposed new state: the configuration's values,
// and the prior state's where an attribute is computed and not configured.
func (m *seqMachine) proposed(prior, config *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	p, c := attrsOf(m.decode(prior)), attrsOf(m.decode(config))
	out := map[string]tftypes.Value{}
	for _, a := range m.resSchema.Block.Attributes {
		v := c[a.Name]
		if v.IsNull() && a.Computed {
			v = tftypes.NewValue(v.Type(), nil)
			if pv, ok := p[a.Name]; ok {
				v = pv
			}
		}
		out[a.Name] = v
	}
	for _, b := range m.resSchema.Block.BlockTypes {
		out[b.TypeName] = c[b.TypeName]
	}
	d, err := tfprotov6.NewDynamicValue(m.stateType, tftypes.NewValue(m.stateType, out))
	if err != nil {
		m.t.Fatal(err)
	}
	return &d
}

func (m *seqMachine) validate(s tfprotov6.ProviderServer, ctx context.Context, cfg *tfprotov6.DynamicValue) bool {
	resp, err := s.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: application.TypeName, Config: cfg,
		ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: true}})
	if err != nil {
		m.t.Fatal(err)
	}
	return m.diagnostics("validate", resp.Diagnostics)
}

// read refreshes the state; it reports false when the read failed.
func (m *seqMachine) read(s tfprotov6.ProviderServer, ctx context.Context) bool {
	m.t.Helper()
	if m.state == nil {
		return true
	}
	resp, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: application.TypeName, CurrentState: m.state,
		Private: m.private, CurrentIdentity: m.identity})
	if err != nil {
		m.t.Fatal(err)
	}
	ok := m.diagnostics("refresh", resp.Diagnostics)
	if !ok {
		return false
	}
	m.scanState("refresh", resp.NewState, resp.Private)
	if m.decode(resp.NewState).IsNull() {
		m.state, m.private, m.identity = nil, nil, nil
		return true
	}
	m.state, m.private = resp.NewState, resp.Private
	if resp.NewIdentity != nil {
		m.identity = resp.NewIdentity
	}
	m.checkDrift()
	return true
}

// checkDrift fails when a refresh leaves the cluster's value of a setting
// the configuration sets out of the state: drift is shown.
func (m *seqMachine) checkDrift() {
	m.t.Helper()
	if !m.written || m.imported {
		return
	}
	obj := m.object()
	if obj == nil {
		return
	}
	cluster, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	state := goValue(attrsOf(m.decode(m.state))["settings"])
	for _, p := range leafPaths(m.config.Settings) {
		want, inCluster := lookup(cluster, p)
		if _, isMap := want.(map[string]any); !inCluster || isMap {
			continue
		}
		if got, _ := lookup(state, p); fmt.Sprint(got) != fmt.Sprint(want) {
			m.violation("drift-hidden/settings", "settings.%s is %v in the cluster, %v in the refreshed state", strings.Join(p, "."), want, got)
		}
	}
}

func (m *seqMachine) plan(s tfprotov6.ProviderServer, ctx context.Context, cfg *tfprotov6.DynamicValue) *tfprotov6.PlanResourceChangeResponse {
	m.t.Helper()
	prior := m.state
	if prior == nil {
		prior = m.dv(m.stateType, nil)
	}
	resp, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: application.TypeName,
		PriorState: prior, ProposedNewState: m.proposed(prior, cfg), Config: cfg, PriorPrivate: m.private,
		PriorIdentity: m.identity})
	if err != nil {
		m.t.Fatal(err)
	}
	m.scanPlan("plan", resp)
	if !m.diagnostics("plan", resp.Diagnostics) {
		return nil
	}
	m.validPlan(cfg, resp.PlannedState)
	return resp
}

// validPlan checks what the CLI checks of a plan: every attribute the
// provider does not compute is as configured (write-only ones null).
func (m *seqMachine) validPlan(cfg, planned *tfprotov6.DynamicValue) {
	c, p := attrsOf(m.decode(cfg)), attrsOf(m.decode(planned))
	for _, a := range m.resSchema.Block.Attributes {
		want := c[a.Name]
		if a.WriteOnly {
			if !p[a.Name].IsNull() {
				m.violation("invalid-plan/"+a.Name, "planned %s = %v, a write-only attribute", a.Name, p[a.Name])
			}
			continue
		}
		if !a.Computed && !p[a.Name].Equal(want) {
			m.violation("invalid-plan/"+a.Name, "planned %s = %v, configured %v", a.Name, p[a.Name], want)
		}
	}
}

// ---- the commands

// apply is `apply`: refresh, plan, then a new process that plans again
// (the final plan) and applies.
func (m *seqMachine) apply(c seqConfig) {
	m.t.Helper()
	m.noteSecrets(c)
	s, ctx := m.open()
	atPlan := m.configValue(c, true)
	if !m.validate(s, ctx, atPlan) || !m.read(s, ctx) {
		return
	}
	first := m.plan(s, ctx, atPlan)
	if first == nil {
		return
	}
	if len(first.RequiresReplace) > 0 {
		m.violation("replace", "the plan replaces the Application: %v", first.RequiresReplace)
	}
	priorVal := m.decode(m.state)
	if !priorVal.IsNull() && priorVal.Equal(m.decode(first.PlannedState)) {
		m.config, m.written = c, true
		return // no changes
	}
	s, ctx = m.open()
	cfg := m.configValue(c, false)
	if !m.validate(s, ctx, cfg) {
		return
	}
	final := m.plan(s, ctx, cfg)
	if final == nil {
		return
	}
	m.consistent("inconsistent-final-plan", m.decode(first.PlannedState), m.decode(final.PlannedState))
	prior := m.state
	if prior == nil {
		prior = m.dv(m.stateType, nil)
	}
	created := m.state == nil
	priorConfig := m.config
	resp, err := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: application.TypeName,
		PriorState: prior, PlannedState: final.PlannedState, Config: cfg, PlannedPrivate: final.PlannedPrivate,
		PlannedIdentity: final.PlannedIdentity})
	if err != nil {
		m.t.Fatal(err)
	}
	m.scanState("apply", resp.NewState, resp.Private)
	ok := m.diagnostics("apply", resp.Diagnostics)
	if m.decode(resp.NewState).IsNull() {
		m.state, m.private, m.identity = nil, nil, nil
	} else {
		m.state, m.private, m.identity = resp.NewState, resp.Private, resp.NewIdentity
	}
	m.config, m.written = c, true
	if !ok {
		return
	}
	m.imported, m.importedRead = false, false
	m.consistent("inconsistent", m.decode(final.PlannedState), m.decode(resp.NewState))
	sensitiveWritten := created || c.SensitiveVersion != priorConfig.SensitiveVersion
	m.checkCluster(c, sensitiveWritten)
	if m.held {
		return
	}
	// DP applied: the next plan of the same configuration is empty.
	if !m.settle() {
		return
	}
	s, ctx = m.open()
	if !m.read(s, ctx) || m.state == nil {
		return
	}
	again := m.plan(s, ctx, cfg)
	if again == nil {
		return
	}
	if len(again.RequiresReplace) > 0 {
		m.violation("plan-not-empty/replace", "the plan after an apply DP applied replaces: %v", again.RequiresReplace)
	}
	// The violation is named by the first configurable attribute the plan
	// changes: the computed ones it makes unknown follow from it.
	pr, pl := attrsOf(m.decode(m.state)), attrsOf(m.decode(again.PlannedState))
	var changes []string
	cause := ""
	for _, a := range m.resSchema.Block.Attributes {
		if !pr[a.Name].Equal(pl[a.Name]) {
			changes = append(changes, fmt.Sprintf("%s: %v -> %v", a.Name, pr[a.Name], pl[a.Name]))
			if (a.Optional || a.Required) && (cause == "" || a.Name < cause) {
				cause = a.Name
			}
		}
	}
	sort.Strings(changes)
	if len(changes) > 0 {
		if cause == "" {
			cause, _, _ = strings.Cut(changes[0], ":")
		}
		m.violation("plan-not-empty/"+cause, "after an apply DP applied, the plan changes %s", strings.Join(changes, "; "))
	}
}

// planOnly is `plan`: nothing is kept.
func (m *seqMachine) planOnly(c seqConfig) {
	m.t.Helper()
	m.noteSecrets(c)
	state, private, identity := m.state, m.private, m.identity
	defer func() { m.state, m.private, m.identity = state, private, identity }()
	s, ctx := m.open()
	cfg := m.configValue(c, true)
	if m.validate(s, ctx, cfg) && m.read(s, ctx) {
		m.plan(s, ctx, cfg)
	}
}

func (m *seqMachine) refreshOnly() {
	s, ctx := m.open()
	m.read(s, ctx)
}

// destroy is `destroy`: refresh, then the delete of the CLI's own plan.
func (m *seqMachine) destroy() {
	m.t.Helper()
	s, ctx := m.open()
	if !m.read(s, ctx) || m.state == nil {
		return
	}
	null := m.dv(m.stateType, nil)
	resp, err := s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: application.TypeName,
		PriorState: m.state, PlannedState: null, Config: null, PlannedPrivate: m.private})
	if err != nil {
		m.t.Fatal(err)
	}
	m.scanState("destroy", resp.NewState, resp.Private)
	if !m.diagnostics("destroy", resp.Diagnostics) {
		return
	}
	m.state, m.private, m.identity = nil, nil, nil
	m.live = map[string]liveValue{}
	m.written = false
}

// importApp is `import` (an import block's) of the Application.
func (m *seqMachine) importApp(mode string) {
	m.t.Helper()
	m.importMode = mode
	s, ctx := m.open()
	resp, err := s.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: application.TypeName,
		ID: m.e.namespace + "/" + m.name, ClientCapabilities: &tfprotov6.ImportResourceStateClientCapabilities{}})
	if err != nil {
		m.t.Fatal(err)
	}
	if !m.diagnostics("import", resp.Diagnostics) || len(resp.ImportedResources) != 1 {
		return
	}
	r := resp.ImportedResources[0]
	m.state, m.private, m.identity = r.State, r.Private, r.Identity
	m.imported, m.importedRead = true, mode == "read"
	m.written = false
	if !m.read(s, ctx) {
		m.state, m.private, m.identity = nil, nil, nil
	}
}

// ---- other writers and DP

func (m *seqMachine) object() *unstructured.Unstructured {
	obj, err := m.apps().Get(context.Background(), m.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		m.t.Fatal(err)
	}
	return obj
}

// configSets reports whether the configuration sets a field, and whether
// through sensitive_settings.
func (m *seqMachine) configSets(path []string) (set, secret bool) {
	if !m.written {
		return false, false
	}
	c := m.config
	switch path[0] {
	case "settings":
		if _, ok := lookup(c.Sensitive, path[1:]); ok {
			return true, true
		}
		_, ok := lookup(c.Settings, path[1:])
		return ok, false
	case "labels":
		_, ok := c.Labels[path[1]]
		return ok, false
	case "annotations":
		_, ok := c.Annotations[path[1]]
		return ok, false
	}
	switch path[1] {
	case "releaseChannel":
		return c.ReleaseChannel != "", false
	case "maintenance":
		return c.Maintenance, false
	case "updateMode":
		return c.UpdateMode != "", false
	}
	return false, false // a resourceRequests entry of its own
}

// foreignWrite is another writer's edit: server-side apply under a field
// manager of its own (apply, create) or an Update as kubectl edit sends it.
func (m *seqMachine) foreignWrite(how string, path []string, value string) {
	m.t.Helper()
	set, secret := m.configSets(path)
	at, v := foreignField(path, value)
	list := at[len(at)-1] == "resourceRequests"
	// A resourceRequests entry's value is its name, a key of the list-map:
	// the ownership warning names the entry by it, as it names settings keys.
	if (!set || secret) && !list {
		m.foreign[value] = true
	}
	ctx := context.Background()
	switch how {
	case "update":
		obj := m.object()
		if obj == nil {
			return
		}
		if list {
			items, _, _ := unstructured.NestedSlice(obj.Object, at...)
			_ = unstructured.SetNestedSlice(obj.Object, append(items, v), at...)
		} else if err := unstructured.SetNestedField(obj.Object, v, at...); err != nil {
			m.t.Fatal(err)
		}
		if _, err := m.apps().Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
			m.t.Logf("kubectl edit refused: %v", err)
			return
		}
	default:
		body := map[string]any{"apiVersion": dpapi.ApplicationGVR.GroupVersion().String(), "kind": "Application",
			"metadata": map[string]any{"name": m.name, "namespace": m.e.namespace}}
		if how == "create" {
			body["spec"] = map[string]any{"packageName": m.e.pkg, "packageVersion": seqVersions[0], "packageRepositoryName": m.e.repository}
		}
		if list {
			_ = unstructured.SetNestedSlice(body, []any{v}, at...)
		} else if err := unstructured.SetNestedField(body, v, at...); err != nil {
			m.t.Fatal(err)
		}
		m.managers++
		data, _ := json.Marshal(body)
		force := true
		if _, err := m.apps().Patch(ctx, m.name, types.ApplyPatchType, data, metav1.PatchOptions{
			FieldManager: fmt.Sprintf("other-%d", m.managers), Force: &force}); err != nil {
			m.t.Logf("server-side apply refused: %v", err)
			return
		}
	}
	if obj := m.object(); !set && obj != nil {
		m.live[strings.Join(path, "\x00")] = liveValue{path: path, value: v, uid: string(obj.GetUID())}
	}
}

// foreignField is where in the object another writer's field for path is,
// and its value (an entry of its own for resourceRequests).
func foreignField(path []string, value string) (at []string, v any) {
	switch path[0] {
	case "labels", "annotations":
		return []string{"metadata", path[0], path[1]}, value
	case "settings":
		return append([]string{"spec"}, path...), value
	}
	switch path[1] {
	case "releaseChannel":
		return []string{"spec", "releaseChannel"}, value
	case "maintenance":
		return []string{"spec", "maintenance"}, "NoResourceReconciliation"
	case "updateMode":
		return []string{"spec", "update", "mode"}, "Manual"
	}
	return []string{"spec", "resourceRequests"}, map[string]any{"kind": "StatefulSet", "name": value, "replicas": int64(1)}
}

// dp makes DP lag (its controller holds back), apply (released), or
// reject the current generation with a message that quotes every value of
// the settings, as DP's texts may.
func (m *seqMachine) dp(mode string) {
	m.t.Helper()
	switch mode {
	case "lag":
		m.e.cp.Hold(m.e.namespace)
		m.held = true
	case "apply":
		m.e.cp.Release(m.e.namespace)
		m.held = false
		m.settle()
	case "reject":
		obj := m.object()
		if obj == nil {
			return
		}
		m.e.cp.Hold(m.e.namespace)
		defer func() {
			if !m.held {
				m.e.cp.Release(m.e.namespace)
			}
		}()
		obj = m.object()
		if obj == nil {
			return
		}
		settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
		var quoted []string
		for _, leaf := range stringLeaves(settings) {
			quoted = append(quoted, fmt.Sprintf("%q is refused", leaf))
		}
		msg := "validate settings: " + strings.Join(quoted, "; ")
		gen := obj.GetGeneration()
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		var kept []any
		for _, c := range conds {
			if cm, ok := c.(map[string]any); ok && cm["type"] != "ConfigurationApplied" {
				kept = append(kept, c)
			}
		}
		kept = append(kept, map[string]any{"type": "ConfigurationApplied", "status": "False", "reason": "SettingsInvalid",
			"message": msg, "observedGeneration": gen, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)})
		_ = unstructured.SetNestedSlice(obj.Object, kept, "status", "conditions")
		_ = unstructured.SetNestedMap(obj.Object, map[string]any{"state": "Failed", "message": msg}, "status", "summary")
		if _, err := m.apps().UpdateStatus(context.Background(), obj, metav1.UpdateOptions{}); err != nil {
			m.t.Logf("status not written: %v", err)
		}
	}
}

// seqRefusedFields are the settings DP's webhook quotes when it refuses.
var seqRefusedFields = append([][]string{{"replicas"}}, seqStringPaths...)

// webhook makes DP's admission webhook refuse every create or change of
// the spec of the namespace's Applications, quoting the settings (a
// ValidatingAdmissionPolicy), or lets them through again.
func (m *seqMachine) webhook(refuse bool) {
	m.t.Helper()
	ctx := context.Background()
	name := "seq-refuse-" + m.e.namespace
	policies := m.e.cp.Dynamic().Resource(admissionGVR("validatingadmissionpolicies"))
	bindings := m.e.cp.Dynamic().Resource(admissionGVR("validatingadmissionpolicybindings"))
	if !refuse {
		_ = bindings.Delete(ctx, name, metav1.DeleteOptions{})
		_ = policies.Delete(ctx, name, metav1.DeleteOptions{})
		m.refusing = false
		m.probeWebhook(false)
		return
	}
	var quoted []string
	for _, p := range seqRefusedFields {
		guard, at := "has(object.spec.settings)", "object.spec.settings"
		for _, k := range p {
			at += "." + k
			guard += " && has(" + at + ")"
		}
		quoted = append(quoted, fmt.Sprintf("(%s ? string(%s) : '')", guard, at))
	}
	policy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"failurePolicy": "Fail",
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
				"apiGroups": []any{dpapi.ApplicationGVR.Group}, "apiVersions": []any{"*"},
				"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"applications"},
			}}},
			"matchConditions": []any{map[string]any{"name": "spec-changes", "expression": "oldObject == null || object.spec != oldObject.spec"}},
			"validations": []any{map[string]any{
				"expression":        "false",
				"messageExpression": "'settings refused by policy: ' + [" + strings.Join(quoted, ", ") + "].join(' ')",
			}},
		},
	}}
	binding := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"policyName": name, "validationActions": []any{"Deny"},
			"matchResources": map[string]any{"namespaceSelector": map[string]any{
				"matchLabels": map[string]any{"kubernetes.io/metadata.name": m.e.namespace}}},
		},
	}}
	if _, err := policies.Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		m.t.Fatal(err)
	}
	if _, err := bindings.Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		m.t.Fatal(err)
	}
	m.refusing = true
	m.probeWebhook(true)
}

// probeWebhook waits until a dry-run create is refused (or accepted) as
// the webhook's state says.
func (m *seqMachine) probeWebhook(refuse bool) {
	m.t.Helper()
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": dpapi.ApplicationGVR.GroupVersion().String(), "kind": "Application",
		"metadata": map[string]any{"name": "probe", "namespace": m.e.namespace},
		"spec":     map[string]any{"packageName": m.e.pkg, "packageVersion": seqVersions[0], "settings": map[string]any{"domain": "probe"}},
	}}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		_, err := m.apps().Create(context.Background(), probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if refused := err != nil && strings.Contains(err.Error(), "settings refused by policy"); refused == refuse {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	m.t.Fatalf("the admission policy did not take effect (refuse %v) within 30s", refuse)
}

func admissionGVR(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: resource}
}

// settle waits until DP has given its verdict on the current generation,
// and reports whether DP applied it.
func (m *seqMachine) settle() bool {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		obj := m.object()
		if obj == nil {
			return false
		}
		if obj.GetDeletionTimestamp() == nil {
			conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, c := range conds {
				cm, _ := c.(map[string]any)
				if cm["type"] == "ConfigurationApplied" && fmt.Sprint(cm["observedGeneration"]) == fmt.Sprint(obj.GetGeneration()) && cm["reason"] != "Pending" {
					return cm["status"] == "True"
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.t.Fatalf("DP gave no verdict on Application %s/%s within 15s", m.e.namespace, m.name)
	return false
}

// ---- the checks

// noteSecrets records the values of sensitive_settings.
func (m *seqMachine) noteSecrets(c seqConfig) {
	for _, v := range stringLeaves(c.Sensitive) {
		m.secrets[v] = true
	}
}

// scan reports every secret or foreign value in b.
func (m *seqMachine) scan(where string, b []byte) { m.scanFor(where, b, true) }

func (m *seqMachine) scanFor(where string, b []byte, foreign bool) {
	m.t.Helper()
	sets := []struct {
		kind   string
		values map[string]bool
	}{{"secret", m.secrets}}
	if foreign {
		sets = append(sets, sets[0])
		sets[1].kind, sets[1].values = "foreign", m.foreign
	}
	for _, set := range sets {
		for _, v := range sortedKeys(set.values) {
			if i := bytes.Index(b, []byte(v)); i >= 0 {
				from, to := max(0, i-200), min(len(b), i+len(v)+100)
				m.violation("leak/"+set.kind+"/"+where, "%s value %q in %s: …%s…", set.kind, v, where, b[from:to])
			}
		}
	}
}

// seqSettingsAttrs are the attributes that hold settings or DP's texts
// about them: an import reads every other attribute whole, whoever wrote it.
var seqSettingsAttrs = map[string]bool{"settings": true, "effective_settings": true, "last_applied_settings": true, "status": true}

// scanValue scans each attribute of a state or plan. Until the first apply
// after an import, an attribute is read whole (settings too with
// import_settings = "read").
func (m *seqMachine) scanValue(where string, d *tfprotov6.DynamicValue) {
	m.t.Helper()
	if d == nil || m.importedRead {
		return
	}
	attrs := attrsOf(m.decode(d))
	for _, name := range sortedKeys(attrs) {
		b, _ := json.Marshal(goValue(attrs[name]))
		m.scanFor(where+"."+name, b, !m.imported || seqSettingsAttrs[name])
	}
}

func (m *seqMachine) scanState(step string, state *tfprotov6.DynamicValue, private []byte) {
	m.t.Helper()
	m.scanValue("state", state)
	m.scan("private", private)
}

func (m *seqMachine) scanPlan(step string, resp *tfprotov6.PlanResourceChangeResponse) {
	m.t.Helper()
	m.scanValue("plan", resp.PlannedState)
	m.scan("private", resp.PlannedPrivate)
}

func (m *seqMachine) scanLogs() {
	m.t.Helper()
	b, off := m.logs.from(m.logOff)
	m.logOff = off
	m.scan("log", b)
}

// expectedErrors are the errors a sequence may meet: a conflict with
// another manager (force_conflicts off), a wait DP does not end (it lags,
// or rejected), the guard of secrets, an Application another writer
// created.
var expectedErrors = regexp.MustCompile(`conflict|timed out waiting|settings refused by policy|DP rejected the settings|Secrets would be removed|already exists|Cannot import non-existent`)

// diagnostics scans diagnostics; it reports whether none is an error, and
// makes a violation of an error no step of the sequence explains.
func (m *seqMachine) diagnostics(rpc string, diags []*tfprotov6.Diagnostic) bool {
	m.t.Helper()
	ok := true
	for _, d := range diags {
		text := d.Summary + ": " + d.Detail
		m.scan("diagnostic", []byte(text))
		if d.Severity != tfprotov6.DiagnosticSeverityError {
			continue
		}
		ok = false
		m.t.Logf("%s error: %s", rpc, text)
		if !expectedErrors.MatchString(text) {
			m.violation("error/"+errorKind(m, text), "%s: %s", rpc, text)
		}
	}
	return ok
}

// errorKind names an error by its summary without names, or by a cause
// several summaries share.
func errorKind(m *seqMachine, text string) string {
	if strings.Contains(text, "must be of type object") {
		return "settings-null"
	}
	if strings.Contains(text, "inconsistent") {
		return "inconsistent"
	}
	summary, _, _ := strings.Cut(text, ": ")
	return strings.ReplaceAll(summary, m.e.namespace+"/"+m.name, "<app>")
}

// consistent fails where after differs from a known value of before.
func (m *seqMachine) consistent(kind string, before, after tftypes.Value) {
	m.t.Helper()
	b, a := attrsOf(before), attrsOf(after)
	for _, name := range sortedKeys(b) {
		if !knownAgrees(b[name], a[name]) {
			m.violation(kind+"/"+name, "%s planned %v, then %v", name, b[name], a[name])
		}
	}
}

// knownAgrees reports whether b agrees with every known part of a.
func knownAgrees(a, b tftypes.Value) bool {
	if !a.IsKnown() {
		return true
	}
	if a.IsFullyKnown() {
		return a.Equal(b)
	}
	if !b.IsKnown() || b.IsNull() || a.IsNull() {
		return false
	}
	switch {
	case a.Type().Is(tftypes.Object{}) || a.Type().Is(tftypes.Map{}):
		var am, bm map[string]tftypes.Value
		if a.As(&am) != nil || b.As(&bm) != nil {
			return false
		}
		for k, av := range am {
			bv, ok := bm[k]
			if !ok || !knownAgrees(av, bv) {
				return false
			}
		}
		return true
	case a.Type().Is(tftypes.List{}) || a.Type().Is(tftypes.Tuple{}) || a.Type().Is(tftypes.Set{}):
		var al, bl []tftypes.Value
		if a.As(&al) != nil || b.As(&bl) != nil || len(al) != len(bl) {
			return false
		}
		for i := range al {
			if !knownAgrees(al[i], bl[i]) {
				return false
			}
		}
		return true
	}
	return a.Equal(b)
}

// checkCluster fails when a value of the configuration is not in the
// Application after an apply, or another writer's value is gone.
func (m *seqMachine) checkCluster(c seqConfig, sensitiveWritten bool) {
	m.t.Helper()
	obj := m.object()
	if obj == nil {
		m.violation("lost-config/object", "the Application is gone after an apply")
		return
	}
	settings, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "settings")
	want := map[string]map[string]any{"settings": c.Settings}
	if sensitiveWritten {
		want["sensitive_settings"] = c.Sensitive
	}
	for attr, doc := range want {
		for _, p := range leafPaths(doc) {
			wv, _ := lookup(doc, p)
			gv, ok := lookup(settings, p)
			if _, isMap := wv.(map[string]any); isMap {
				continue
			}
			if !ok || fmt.Sprint(gv) != fmt.Sprint(wv) {
				m.violation("lost-config/"+attr, "%s.%s is %v in the cluster after the apply", attr, strings.Join(p, "."), gv)
			}
		}
	}
	for kind, mp := range map[string]map[string]string{"labels": c.Labels, "annotations": c.Annotations} {
		got, _, _ := unstructured.NestedStringMap(obj.Object, "metadata", kind)
		for k, v := range mp {
			if got[k] != v {
				m.violation("lost-config/"+kind, "%s %s is %q in the cluster after the apply", kind, k, got[k])
			}
		}
	}
	for field, want := range map[string]string{"releaseChannel": c.ReleaseChannel, "maintenance": map[bool]string{true: "NoResourceReconciliation"}[c.Maintenance]} {
		if got, _, _ := unstructured.NestedString(obj.Object, "spec", field); want != "" && got != want {
			m.violation("lost-config/spec", "spec.%s is %q in the cluster after the apply", field, got)
		}
	}
	if got, _, _ := unstructured.NestedString(obj.Object, "spec", "update", "mode"); c.UpdateMode != "" && got != c.UpdateMode {
		m.violation("lost-config/spec", "spec.update.mode is %q in the cluster after the apply", got)
	}
	// Other writers' values the configuration does not set stay; those it
	// sets now are its own.
	requests, _, _ := unstructured.NestedSlice(obj.Object, "spec", "resourceRequests")
	for key, lv := range m.live {
		// A value written into an Application deleted since (a destroy DP
		// finished) went with it.
		if set, _ := m.configSets(lv.path); set || lv.uid != string(obj.GetUID()) {
			delete(m.live, key)
			continue
		}
		var got any
		var ok bool
		switch lv.path[0] {
		case "settings":
			got, ok = lookup(settings, lv.path[1:])
		case "labels", "annotations":
			got, ok, _ = unstructured.NestedFieldNoCopy(obj.Object, "metadata", lv.path[0], lv.path[1])
		default:
			at, _ := foreignField(lv.path, "")
			if lv.path[1] == "resourceRequests" {
				for _, r := range requests {
					if fmt.Sprint(r) == fmt.Sprint(lv.value) {
						got, ok = r, true
					}
				}
			} else {
				got, ok, _ = unstructured.NestedFieldNoCopy(obj.Object, at...)
			}
		}
		if !ok || fmt.Sprint(got) != fmt.Sprint(lv.value) {
			m.violation("removed-foreign/"+lv.path[0], "%s, written by another writer, is %v after the apply", strings.Join(lv.path, "."), got)
		}
	}
}

// ---- values

// unknownValue is a value known only at apply.
type unknownValue struct{}

// tfValue is v as a value of typ; map keys missing from an object are null.
func tfValue(typ tftypes.Type, v any) tftypes.Value {
	if v == nil {
		return tftypes.NewValue(typ, nil)
	}
	if _, ok := v.(unknownValue); ok {
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	switch tt := typ.(type) {
	case tftypes.Object:
		src, _ := v.(map[string]any)
		attrs := map[string]tftypes.Value{}
		for name, at := range tt.AttributeTypes {
			attrs[name] = tfValue(at, src[name])
		}
		return tftypes.NewValue(tt, attrs)
	case tftypes.Map:
		src, _ := v.(map[string]any)
		elems := map[string]tftypes.Value{}
		for k, e := range src {
			elems[k] = tfValue(tt.ElementType, e)
		}
		return tftypes.NewValue(tt, elems)
	case tftypes.List:
		src, _ := v.([]any)
		var elems []tftypes.Value
		for _, e := range src {
			elems = append(elems, tfValue(tt.ElementType, e))
		}
		return tftypes.NewValue(tt, elems)
	}
	switch {
	case typ.Is(tftypes.DynamicPseudoType):
		return inferred(v)
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, number(v))
	}
	return tftypes.NewValue(typ, v)
}

func number(v any) *big.Float {
	switch n := v.(type) {
	case int64:
		return new(big.Float).SetInt64(n)
	case int:
		return new(big.Float).SetInt64(int64(n))
	case float64:
		return big.NewFloat(n)
	}
	return nil
}

// inferred is v as a value of its own type (objects, tuples, primitives).
func inferred(v any) tftypes.Value {
	switch x := v.(type) {
	case map[string]any:
		types, vals := map[string]tftypes.Type{}, map[string]tftypes.Value{}
		for k, e := range x {
			vals[k] = inferred(e)
			types[k] = vals[k].Type()
		}
		return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
	case []any:
		var types []tftypes.Type
		var vals []tftypes.Value
		for _, e := range x {
			ev := inferred(e)
			types, vals = append(types, ev.Type()), append(vals, ev)
		}
		return tftypes.NewValue(tftypes.Tuple{ElementTypes: types}, vals)
	case string:
		return tftypes.NewValue(tftypes.String, x)
	case bool:
		return tftypes.NewValue(tftypes.Bool, x)
	}
	return tftypes.NewValue(tftypes.Number, number(v))
}

// goValue is v in the JSON data model (unknown as "<unknown>").
func goValue(v tftypes.Value) any {
	if !v.IsKnown() {
		return "<unknown>"
	}
	if v.IsNull() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		return f.String()
	case v.Type().Is(tftypes.Object{}) || v.Type().Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := map[string]any{}
		for k, e := range m {
			out[k] = goValue(e)
		}
		return out
	}
	var l []tftypes.Value
	_ = v.As(&l)
	out := []any{}
	for _, e := range l {
		out = append(out, goValue(e))
	}
	return out
}

// attrsOf returns the attributes of an object value (none when null).
func attrsOf(v tftypes.Value) map[string]tftypes.Value {
	out := map[string]tftypes.Value{}
	if v.IsNull() || !v.IsKnown() {
		return out
	}
	_ = v.As(&out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func stringsToAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func setPath(doc map[string]any, p []string, v any) {
	cur := doc
	for _, k := range p[:len(p)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[p[len(p)-1]] = v
}

func lookup(doc any, p []string) (any, bool) {
	cur := doc
	for _, k := range p {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// leafPaths are the paths of the non-object values of doc.
func leafPaths(doc any) [][]string {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	var out [][]string
	for _, k := range sortedKeys(m) {
		if sub, isMap := m[k].(map[string]any); isMap && len(sub) > 0 {
			for _, p := range leafPaths(sub) {
				out = append(out, append([]string{k}, p...))
			}
			continue
		}
		out = append(out, []string{k})
	}
	return out
}

// stringLeaves are the string values of doc.
func stringLeaves(doc any) []string {
	var out []string
	for _, p := range leafPaths(doc) {
		if v, ok := lookup(doc, p); ok {
			if s, isString := v.(string); isString {
				out = append(out, s)
			}
		}
	}
	return out
}

// withoutPaths is doc without the leaves of other (nil stays nil).
func withoutPaths(doc, other map[string]any) map[string]any {
	if doc == nil {
		return nil
	}
	data, _ := json.Marshal(doc)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	for k, v := range out {
		if f, ok := v.(float64); ok {
			out[k] = int64(f)
		}
	}
	for _, p := range leafPaths(other) {
		parent, ok := lookup(out, p[:len(p)-1])
		if pm, isMap := parent.(map[string]any); ok && isMap {
			delete(pm, p[len(p)-1])
		}
	}
	return out
}

// shortcutsEnabled reports whether protocol.EnvVar leaves the shortcuts on.
func shortcutsEnabled() bool {
	return !slices.Contains([]string{"off", "false", "0", "no"}, strings.ToLower(os.Getenv(protocol.EnvVar)))
}
