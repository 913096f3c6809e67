package engine

import (
	"reflect"
	"testing"
)

func fieldsOf(t *testing.T, schema string) []Field {
	t.Helper()
	var out []Field
	collectFields(yamlTree(t, schema), sortedKeys[any], nil, 0, &out)
	return out
}

func TestFields_OrderedByUIOrderThenName(t *testing.T) {
	fs := fieldsOf(t, `
type: object
properties:
  zeta: {type: string}
  alpha: {type: string}
  second: {type: string, x-deckhouse-ui-order: 20}
  first:
    type: object
    x-deckhouse-ui-order: 10
    properties:
      b: {type: string}
      a: {type: string}
  list:
    type: array
    items:
      type: object
      properties:
        name: {type: string}
  labels:
    type: object
    additionalProperties: {type: string}
`)
	var got []string
	for _, f := range fs {
		got = append(got, f.Path.String())
	}
	want := []string{"first", "first.a", "first.b", "second", "alpha", "labels", "labels.*", "list", "list[-1].name", "zeta"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestFields_ExposeFormExtensions(t *testing.T) {
	fs := fieldsOf(t, `
type: object
properties:
  tlsSecretName:
    type: string
    description: TLS secret
    x-deckhouse-ui-group: TLS
    x-deckhouse-ui-order: 5
    x-deckhouse-ui-validation-message: Pick a secret
    x-deckhouse-ui-resource-name:
      apiVersion: v1
      kind: Secret
      labelSelector:
        matchLabels: {example.com/tls: "true"}
  logLevel: {type: string, default: Info, x-deckhouse-ui-advanced: true}
  storageClass: {type: string, x-deckhouse-grantable-resource: storageclasses, x-deckhouse-immutable: true}
`)
	order := 5
	want := []Field{
		{Path: Path{{Key: "tlsSecretName"}}, Type: "string", Description: "TLS secret", UIOrder: &order, UIGroup: "TLS", UIValidationMessage: "Pick a secret",
			ResourceName: &ResourceRef{APIVersion: "v1", Kind: "Secret", LabelSelector: map[string]any{"matchLabels": map[string]any{"example.com/tls": "true"}}}},
		{Path: Path{{Key: "logLevel"}}, Type: "string", Default: "Info", HasDefault: true, UIAdvanced: true},
		{Path: Path{{Key: "storageClass"}}, Type: "string", GrantableResource: "storageclasses", Immutable: true},
	}
	if !reflect.DeepEqual(fs, want) {
		t.Fatalf("got %+v", fs)
	}
}
