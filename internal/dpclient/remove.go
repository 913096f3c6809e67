package dpclient

import (
	"context"
	"encoding/json"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
)

// RemovedField is a field RemoveFields removes: its path in the object and
// the value it must still hold.
type RemovedField struct {
	Path  []string
	Value any
}

// RemoveFields removes fields of the Application namespace/name with one
// JSON patch under manager, each only while it still holds its value (a
// test before each removal): the step before a server-side apply that would
// empty a map by removing the fields this manager applied before, which the
// API server's server-side apply stores as null instead of an empty map
// (structured-merge-diff's RemoveItems), refused where the schema wants an
// object ("spec.settings in body must be of type object").
func (c *Client) RemoveFields(ctx context.Context, namespace, name, manager string, fields []RemovedField) error {
	ops := make([]map[string]any, 0, 2*len(fields))
	for _, f := range fields {
		p := pointer(f.Path)
		ops = append(ops, map[string]any{"op": "test", "path": p, "value": f.Value}, map[string]any{"op": "remove", "path": p})
	}
	body, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	client := c.dyn.Resource(dpapi.ApplicationGVR).Namespace(namespace)
	defer c.wrote(namespace, name)
	_, err = c.retryWrite(ctx, func(ctx context.Context) (*unstructured.Unstructured, error) {
		return client.Patch(ctx, name, k8stypes.JSONPatchType, body, metav1.PatchOptions{FieldManager: manager})
	})
	return err
}

// pointer is the JSON pointer (RFC 6901) of path.
func pointer(path []string) string {
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	var b strings.Builder
	for _, s := range path {
		b.WriteString("/" + esc.Replace(s))
	}
	return b.String()
}
