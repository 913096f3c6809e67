package application

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

var _ resource.ResourceWithMoveState = &Resource{}

// MoveState accepts `moved { from = kubernetes_manifest.x  to = deckhouse_application.x }`
// (Terraform 1.8 and later) for a kubernetes_manifest of the
// hashicorp/kubernetes provider that holds an Application. metadata and spec
// are mapped; the settings follow the import rules: any value of
// spec.settings may be a secret, so none goes to the state, and the resource
// is marked as imported (the next refresh reads the rest from the cluster,
// and the first apply writes the settings of the configuration).
func (r *Resource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: r.moveFromKubernetesManifest}}
}

// kubernetesManifestState is the part of a kubernetes_manifest state the
// kubernetesProvider reports whether a source provider address names the
// hashicorp/kubernetes provider: Terraform sends "registry.terraform.io/
// hashicorp/kubernetes", OpenTofu the bare name "kubernetes" (or with its
// own registry host).
func kubernetesProvider(addr string) bool {
	parts := strings.Split(addr, "/")
	switch len(parts) {
	case 1:
		return parts[0] == "kubernetes"
	case 2:
		return addr == "hashicorp/kubernetes"
	case 3:
		return parts[1] == "hashicorp" && parts[2] == "kubernetes"
	}
	return false
}

// move reads: the object as last read (object) and as configured
// (manifest), each a dynamic value.
type kubernetesManifestState struct {
	Manifest json.RawMessage `json:"manifest"`
	Object   json.RawMessage `json:"object"`
}

func (r *Resource) moveFromKubernetesManifest(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	if req.SourceTypeName != "kubernetes_manifest" || !kubernetesProvider(req.SourceProviderAddress) ||
		req.SourceRawState == nil {
		return // not ours: the framework reports that no mover applies
	}
	var src kubernetesManifestState
	if err := json.Unmarshal(req.SourceRawState.JSON, &src); err != nil {
		resp.Diagnostics.AddError("Cannot move kubernetes_manifest", "Reading the kubernetes_manifest state: "+err.Error())
		return
	}
	obj := dynamicObject(src.Object)
	if obj == nil {
		obj = dynamicObject(src.Manifest)
	}
	u := &unstructured.Unstructured{Object: obj}
	if obj == nil || u.GetAPIVersion() != dpapi.ApplicationGVR.GroupVersion().String() || u.GetKind() != "Application" {
		resp.Diagnostics.AddError("Cannot move kubernetes_manifest",
			fmt.Sprintf("The kubernetes_manifest holds %s %s, not a %s Application: only Applications move to deckhouse_application.",
				u.GetAPIVersion(), u.GetKind(), dpapi.ApplicationGVR.GroupVersion().String()))
		return
	}
	if u.GetNamespace() == "" || u.GetName() == "" {
		resp.Diagnostics.AddError("Cannot move kubernetes_manifest", "The Application in the kubernetes_manifest state has no namespace or no name.")
		return
	}
	m := importedModel(u.GetNamespace(), u.GetName())
	settings, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "settings")
	secrets := newRedactor(settings)
	resp.Diagnostics.Append(r.fromObject(ctx, &m, u, r.fieldManager(&m), secrets.Redact)...)
	carryManifest(&m)
	resp.Diagnostics.Append(resp.TargetState.Set(ctx, &m)...)
	if resp.TargetIdentity != nil {
		resp.Diagnostics.Append(resp.TargetIdentity.Set(ctx, applicationIdentity{
			Namespace: types.StringValue(u.GetNamespace()), Name: types.StringValue(u.GetName()),
		})...)
	}
	resp.Diagnostics.Append(privateState{Imported: true}.write(ctx, resp.TargetPrivate)...)
}

// dynamicObject decodes a dynamic attribute of a state in JSON: either
// {"value": ..., "type": ...}, as Terraform stores a dynamic value, or the
// value itself. Nil when it is not an object.
func dynamicObject(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	if inner, ok := m["value"].(map[string]any); ok && len(m) == 2 && m["type"] != nil {
		return inner
	}
	return m
}

// carryManifest keeps of m, read from a kubernetes_manifest's object, only
// the attributes a manifest carries (manifestRead); the others get their
// default, else null.
func carryManifest(m *applicationModel) {
	for _, n := range attributeNames {
		a := attributes[n]
		if a.manifest == manifestRead {
			continue
		}
		v := a.defaultValue()
		if v == nil {
			v = nullValue(a.attrType())
		}
		m.set(n, v)
	}
}
