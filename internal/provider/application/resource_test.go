package application

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

func TestSensitivePaths_StrippedFromClusterSettings(t *testing.T) {
	tests := []struct {
		name      string
		cluster   map[string]any
		sensitive map[string]any
		prior     map[string]any
		want      map[string]any
	}{
		{
			name:      "leaf beside declared settings",
			cluster:   map[string]any{"db": map[string]any{"host": "h", "password": "p"}},
			sensitive: map[string]any{"db": map[string]any{"password": "x"}},
			want:      map[string]any{"db": map[string]any{"host": "h"}},
		},
		{
			name:      "object emptied by the removal disappears",
			cluster:   map[string]any{"replicas": 1, "auth": map[string]any{"password": "p"}},
			sensitive: map[string]any{"auth": map[string]any{"password": "x"}},
			want:      map[string]any{"replicas": 1},
		},
		{
			name:      "object declared empty by the user stays",
			cluster:   map[string]any{"auth": map[string]any{"password": "p"}},
			sensitive: map[string]any{"auth": map[string]any{"password": "x"}},
			prior:     map[string]any{"auth": map[string]any{}},
			want:      map[string]any{"auth": map[string]any{}},
		},
		{
			name:    "no sensitive paths: unchanged",
			cluster: map[string]any{"a": []any{1, 2}},
			want:    map[string]any{"a": []any{1, 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := privateState{SensitivePaths: secretPaths(tt.sensitive, nil, ""), Recorded: true}.encode()
			paths := resolvePaths(tt.cluster, privateFromMap(enc).SensitivePaths, "")
			got := stripPaths(tt.cluster, paths, func(p []string) bool {
				v, ok := lookupPath(tt.prior, p)
				return ok && isEmptyDoc(v)
			})
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDeepMerge_ObjectsMergeOthersReplace(t *testing.T) {
	base := map[string]any{"a": map[string]any{"x": 1, "y": 2}, "l": []any{1}}
	over := map[string]any{"a": map[string]any{"y": 3}, "l": []any{2, 3}}
	got := engine.Merge(base, over)
	want := map[string]any{"a": map[string]any{"x": 1, "y": 3}, "l": []any{2, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if base["a"].(map[string]any)["y"] != 2 {
		t.Fatal("Merge modified its input")
	}
}

// Read sets the state only when sameModel reports a change, so sameModel must
// compare every attribute of the model.
func TestSameModel_ComparesEveryAttribute(t *testing.T) {
	nulls := nullApplicationModel()
	v := reflect.ValueOf(&nulls).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		t.Run(name, func(t *testing.T) {
			a, b := nulls, nulls
			if !sameModel(&a, &b) {
				t.Fatal("equal models reported as different")
			}
			// An unknown value differs from a null one of the same type.
			bv := reflect.ValueOf(&b).Elem().Field(i)
			bv.Set(reflect.ValueOf(unknownLike(bv.Interface().(attr.Value))))
			if sameModel(&a, &b) {
				t.Fatalf("a change of %s is not detected", name)
			}
		})
	}
}

func nullApplicationModel() applicationModel {
	var m applicationModel
	for _, n := range attributeNames {
		m.set(n, nullValue(attributes[n].attrType()))
	}
	return m
}

func unknownLike(v attr.Value) attr.Value {
	ctx := context.Background()
	t := v.Type(ctx)
	u, err := t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), tftypes.UnknownValue))
	if err != nil {
		panic(err)
	}
	return u
}

func TestApplicationNameValidator_DNSLabelOfAtMost24Characters(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"demo", true},
		{"demo-1", true},
		{"a23456789012345678901234", true},
		{"a234567890123456789012345", false},
		{"Demo", false},
		{"demo_app", false},
		{"-demo", false},
		{"demo.app", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp validator.StringResponse
			applicationNameValidator{}.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("name"), ConfigValue: types.StringValue(tt.name)}, &resp)
			if ok := !resp.Diagnostics.HasError(); ok != tt.ok {
				t.Fatalf("valid = %v, want %v (%v)", ok, tt.ok, resp.Diagnostics)
			}
		})
	}
}
