package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kubecel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// evaluateBenchSchema is a realistic settings schema: 50 fields at several
// levels (objects, arrays of objects, a map), defaults, enums, patterns and
// 10 CEL rules, written so that the same text, with the rule key renamed, is
// also a valid CRD structural schema.
const evaluateBenchSchema = `
type: object
x-deckhouse-validations:
- expression: "!has(self.replicas) || !has(self.maxReplicas) || self.replicas <= self.maxReplicas"
  message: "replicas must not exceed maxReplicas"
properties:
  replicas: {type: integer, default: 1, minimum: 0, maximum: 100}
  maxReplicas: {type: integer, default: 3, minimum: 1, maximum: 100}
  domain: {type: string, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'}
  logLevel: {type: string, enum: [Info, Debug, Warn], default: Info}
  image:
    type: object
    default: {}
    x-deckhouse-validations:
    - expression: "!has(self.tag) || self.tag != 'latest' || self.pullPolicy == 'Always'"
      message: "the latest tag needs pullPolicy Always"
    properties:
      repository: {type: string, maxLength: 512, default: registry.example.com/app}
      tag: {type: string, maxLength: 128, default: v1.0.0}
      pullPolicy: {type: string, enum: [Always, IfNotPresent, Never], default: IfNotPresent}
  resources:
    type: object
    default: {}
    properties:
      requests:
        type: object
        default: {}
        properties:
          cpu: {type: string, maxLength: 16, default: 100m}
          memory: {type: string, maxLength: 16, default: 128Mi}
      limits:
        type: object
        default: {}
        properties:
          cpu: {type: string, maxLength: 16}
          memory: {type: string, maxLength: 16, default: 512Mi}
  storage:
    type: object
    default: {}
    x-deckhouse-validations:
    - expression: "!has(self.mode) || self.mode != 'External' || has(self.external)"
      message: "external storage needs storage.external"
    properties:
      mode: {type: string, enum: [Internal, External], default: Internal}
      size: {type: string, maxLength: 16, default: 10Gi, pattern: '^[0-9]+(Mi|Gi|Ti)$'}
      className: {type: string, maxLength: 253}
      external:
        type: object
        properties:
          host: {type: string, maxLength: 253}
          port: {type: integer, default: 5432, minimum: 1, maximum: 65535}
          database: {type: string, maxLength: 63}
          user: {type: string, maxLength: 63}
          sslMode: {type: string, enum: [disable, require, verify-full], default: require}
  backup:
    type: object
    default: {}
    x-deckhouse-validations:
    - expression: "!has(self.retention) || duration(self.retention) >= duration('24h')"
      message: "backup retention must be at least 24h"
    properties:
      enabled: {type: boolean, default: false}
      schedule: {type: string, maxLength: 64, default: "0 3 * * *"}
      retention: {type: string, maxLength: 16, default: 168h}
  ingress:
    type: object
    default: {}
    x-deckhouse-validations:
    - expression: "!has(self.enabled) || !self.enabled || has(self.host)"
      message: "an enabled ingress needs a host"
    properties:
      enabled: {type: boolean, default: false}
      host: {type: string, maxLength: 253}
      className: {type: string, maxLength: 63}
      tls:
        type: object
        properties:
          enabled: {type: boolean, default: true}
          secretName: {type: string, maxLength: 253}
      annotations:
        type: object
        maxProperties: 32
        additionalProperties: {type: string, maxLength: 1024}
  monitoring:
    type: object
    default: {}
    x-deckhouse-validations:
    - expression: "!has(self.interval) || !has(self.scrapeTimeout) || duration(self.scrapeTimeout) <= duration(self.interval)"
      message: "scrapeTimeout must not exceed interval"
    properties:
      enabled: {type: boolean, default: true}
      interval: {type: string, maxLength: 16, default: 30s}
      scrapeTimeout: {type: string, maxLength: 16, default: 10s}
  users:
    type: array
    maxItems: 32
    items:
      type: object
      required: [name]
      x-deckhouse-validations:
      - expression: "self.name != 'root'"
        message: "root is reserved"
      properties:
        name: {type: string, maxLength: 63, pattern: '^[a-z][a-z0-9_]*$'}
        role: {type: string, enum: [viewer, editor, admin], default: viewer}
        email: {type: string, maxLength: 254}
  nodeSelector:
    type: object
    maxProperties: 32
    additionalProperties: {type: string, maxLength: 63}
  tolerations:
    type: array
    maxItems: 16
    items:
      type: object
      x-deckhouse-validations:
      - expression: "!has(self.operator) || self.operator != 'Exists' || !has(self.value)"
        message: "a toleration with operator Exists takes no value"
      properties:
        key: {type: string, maxLength: 253}
        operator: {type: string, enum: [Exists, Equal]}
        value: {type: string, maxLength: 63}
        effect: {type: string, enum: [NoSchedule, PreferNoSchedule, NoExecute]}
  auth:
    type: object
    default: {}
    x-deckhouse-validations:
    - expression: "!has(self.mode) || self.mode != 'OIDC' || has(self.oidc)"
      message: "OIDC needs auth.oidc"
    properties:
      mode: {type: string, enum: [None, Basic, OIDC], default: None}
      oidc:
        type: object
        properties:
          issuer: {type: string, maxLength: 512}
          clientID: {type: string, maxLength: 253}
          clientSecret: {type: string, maxLength: 253}
  features:
    type: object
    default: {}
    x-deckhouse-validations:
    - expression: "!(self.experimental && self.stable)"
      message: "experimental and stable are exclusive"
    properties:
      experimental: {type: boolean, default: false}
      stable: {type: boolean, default: true}
      metrics: {type: boolean, default: true}
      tracing: {type: boolean, default: false}
  timeouts:
    type: object
    default: {}
    properties:
      connect: {type: string, maxLength: 16, default: 5s}
      read: {type: string, maxLength: 16, default: 30s}
      write: {type: string, maxLength: 16, default: 30s}
`

// evaluateBenchDocument is a settings document that sets about two thirds of the fields.
const evaluateBenchDocument = `{
  "replicas": 2, "maxReplicas": 5, "domain": "app.example.com", "logLevel": "Debug",
  "image": {"repository": "registry.example.com/team/app", "tag": "v2.3.1"},
  "resources": {"requests": {"cpu": "250m"}, "limits": {"cpu": "1", "memory": "1Gi"}},
  "storage": {"mode": "External", "external": {"host": "db.example.com", "database": "app", "user": "app"}},
  "backup": {"enabled": true, "retention": "720h"},
  "ingress": {"enabled": true, "host": "app.example.com", "tls": {"secretName": "app-tls"},
              "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "64m", "example.com/team": "core"}},
  "monitoring": {"interval": "1m"},
  "users": [{"name": "alice", "role": "admin", "email": "alice@example.com"}, {"name": "bob"},
            {"name": "carol", "role": "editor"}, {"name": "dave"}, {"name": "erin", "email": "erin@example.com"}],
  "nodeSelector": {"node-role.kubernetes.io/app": "", "topology.kubernetes.io/zone": "eu-1a"},
  "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "app", "effect": "NoSchedule"}, {"operator": "Exists"}],
  "auth": {"mode": "OIDC", "oidc": {"issuer": "https://id.example.com", "clientID": "app"}},
  "features": {"tracing": true}
}`

func evaluateBenchDoc(b *testing.B) map[string]any {
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(evaluateBenchDocument))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		b.Fatal(err)
	}
	n, err := normalize(v)
	if err != nil {
		b.Fatal(err)
	}
	return n.(map[string]any)
}

// BenchmarkEvaluate measures one settings document through schema
// validation, CEL rules and defaulting (an install: no previous settings).
func BenchmarkEvaluate(b *testing.B) {
	p, err := loadFS(fstest.MapFS{"openapi/settings.yaml": {Data: []byte(evaluateBenchSchema)}})
	if err != nil {
		b.Fatal(err)
	}
	doc := evaluateBenchDoc(b)
	if res := p.Evaluate(Request{Settings: doc}); !res.OK() {
		b.Fatalf("benchmark document rejected: %v", problemSummary(res.Problems))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Evaluate(Request{Settings: doc})
	}
}

// BenchmarkApiextensions does the same work for the same document with
// kube-apiserver's own machinery: the schema as a CRD structural schema with
// x-kubernetes-validations, validated (validation), defaulted (defaulting)
// and CEL-checked (schema/cel) in process.
func BenchmarkApiextensions(b *testing.B) {
	props := crdSchemaFromSettings(b, evaluateBenchSchema)
	structural, err := structuralschema.NewStructural(props)
	if err != nil {
		b.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		b.Fatal(err)
	}
	celValidator := kubecel.NewValidator(structural, true, celconfig.PerCallLimit)
	if celValidator == nil {
		b.Fatal("no CEL validator: the schema has no rules")
	}
	doc := evaluateBenchDoc(b)
	ctx := context.Background()
	run := func() int {
		obj := deepCopy(doc)
		defaulting.Default(obj, structural)
		errs := apiservervalidation.ValidateCustomResource(nil, obj, validator)
		celErrs, _ := celValidator.Validate(ctx, nil, structural, obj, nil, celconfig.RuntimeCELCostBudget)
		return len(errs) + len(celErrs)
	}
	if n := run(); n != 0 {
		b.Fatalf("benchmark document rejected by apiextensions: %d errors", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}

// crdSchemaFromSettings turns a DP settings schema into the internal
// apiextensions form of the same CRD schema: x-deckhouse-validations become
// x-kubernetes-validations (expression → rule), other DP extensions go.
func crdSchemaFromSettings(b *testing.B, src string) *apiextensions.JSONSchemaProps {
	tree := yamlTree(b, src)
	var convert func(v any) any
	convert = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				switch {
				case k == "x-deckhouse-validations":
					var rules []any
					for _, r := range e.([]any) {
						m := r.(map[string]any)
						rules = append(rules, map[string]any{"rule": m["expression"], "message": m["message"]})
					}
					out["x-kubernetes-validations"] = rules
				case strings.HasPrefix(k, "x-deckhouse-"):
				default:
					out[k] = convert(e)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = convert(e)
			}
			return out
		}
		return v
	}
	data, err := json.Marshal(convert(tree))
	if err != nil {
		b.Fatal(err)
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(data, &v1); err != nil {
		b.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		b.Fatal(err)
	}
	return &internal
}
