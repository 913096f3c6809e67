package functions

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

const settingDoc = `{"replicas":2,"postgres":{"storageClass":"fast","size":null},"hosts":[{"name":"a"},{"name":"b"}]}`

// setting reads one value by DP's path notation from a JSON string or an
// object; a path that is not there is an error naming it and what is there,
// unless a default is given; a setting present and null is null.
func TestUnitFunction_SettingReadsByPathAndNamesAMissingOne(t *testing.T) {
	t.Parallel()
	doc := types.DynamicValue(types.StringValue(settingDoc))
	object := convert.ToDynamic(map[string]any{"postgres": map[string]any{"storageClass": "fast"}})
	for _, tc := range []struct {
		name     string
		doc      types.Dynamic
		path     string
		defaults []attr.Value
		want     any
		wantErr  []string
	}{
		{name: "a top-level key", doc: doc, path: "replicas", want: int64(2)},
		{name: "a nested key", doc: doc, path: "postgres.storageClass", want: "fast"},
		{name: "an array element", doc: doc, path: "hosts[1].name", want: "b"},
		{name: "the whole document", doc: object, path: "", want: map[string]any{"postgres": map[string]any{"storageClass": "fast"}}},
		{name: "an object argument", doc: object, path: "postgres.storageClass", want: "fast"},
		{name: "present and null is null", doc: doc, path: "postgres.size", want: nil},
		{name: "a misspelt key fails naming the path and the keys there", doc: doc, path: "postgres.storageClas",
			wantErr: []string{`no setting at "postgres.storageClas"`, `postgres has no key "storageClas" (it has: size, storageClass)`}},
		{name: "a missing key with a default gives the default", doc: doc, path: "postgres.storageClas",
			defaults: []attr.Value{types.DynamicValue(types.StringValue("slow"))}, want: "slow"},
		{name: "an index past the end fails", doc: doc, path: "hosts[2].name", wantErr: []string{"hosts has 2 elements, no [2]"}},
		{name: "a key below a scalar fails", doc: doc, path: "replicas.max", wantErr: []string{"replicas is number, not an object or an array"}},
		{name: "a null document fails", doc: types.DynamicNull(), path: "replicas", wantErr: []string{"the document is null"}},
		{name: "a null document with a default gives the default", doc: types.DynamicNull(), path: "replicas",
			defaults: []attr.Value{types.DynamicValue(types.Int64Value(1))}, want: int64(1)},
		{name: "a string that is not JSON fails", doc: types.DynamicValue(types.StringValue("{")), path: "a", wantErr: []string{"not JSON"}},
		{name: "a malformed path fails", doc: doc, path: "hosts[x]", wantErr: []string{`"[x]" is not an array index`}},
		{name: "an empty key fails", doc: doc, path: "postgres..size", wantErr: []string{"empty key"}},
		{name: "two defaults fail", doc: doc, path: "replicas", defaults: []attr.Value{types.DynamicNull(), types.DynamicNull()},
			wantErr: []string{"at most one default, got 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			elemTypes := make([]attr.Type, len(tc.defaults))
			for i := range elemTypes {
				elemTypes[i] = types.DynamicType
			}
			variadic := types.TupleValueMust(elemTypes, tc.defaults)
			resp := &function.RunResponse{Result: function.NewResultData(types.DynamicUnknown())}
			NewSetting().Run(context.Background(), function.RunRequest{
				Arguments: function.NewArgumentsData([]attr.Value{tc.doc, types.StringValue(tc.path), variadic}),
			}, resp)
			if len(tc.wantErr) > 0 {
				if resp.Error == nil {
					t.Fatalf("no error, want %q", tc.wantErr)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(resp.Error.Error(), w) {
						t.Errorf("error %q, want it to hold %q", resp.Error.Error(), w)
					}
				}
				return
			}
			if resp.Error != nil {
				t.Fatal(resp.Error)
			}
			got, _, err := convert.FromDynamic(types.DynamicValue(resp.Result.Value()))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := mustJSON(t, got), mustJSON(t, tc.want); a != b {
				t.Fatalf("got %s, want %s", a, b)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := jsonvalue.Canonical(v)
	if err != nil {
		t.Fatalf("not JSON: %#v: %v", v, err)
	}
	return string(b)
}
