package protocol

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The refresh shortcut reads the prior state's top-level strings from the
// request's bytes: nulls and other types are left out, nested values skipped.
func TestTopLevelStrings_ReadsOnlyTopLevelStrings(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String, "note": tftypes.String, "wait": tftypes.Bool,
		"nested": tftypes.Object{AttributeTypes: map[string]tftypes.Type{"inner": tftypes.String}},
	}}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, "app"), "note": tftypes.NewValue(tftypes.String, nil),
		"wait": tftypes.NewValue(tftypes.Bool, true),
		"nested": tftypes.NewValue(typ.AttributeTypes["nested"], map[string]tftypes.Value{
			"inner": tftypes.NewValue(tftypes.String, "x"),
		}),
	}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := topLevelStrings(dv.MsgPack)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["name"] != "app" {
		t.Fatalf("got %v, want only name=app", got)
	}
}

// A refresh answers the identity the client sent when it equals the
// resource's, the resource's when the client sent none, and declines
// otherwise.
func TestIdentityAnswer_SentOrTheResources(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"namespace": tftypes.String, "name": tftypes.String}}
	encode := func(ns, name string) *tfprotov6.ResourceIdentityData {
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{
			"namespace": tftypes.NewValue(tftypes.String, ns), "name": tftypes.NewValue(tftypes.String, name),
		}))
		if err != nil {
			t.Fatal(err)
		}
		return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
	}
	own := map[string]string{"namespace": "demo", "name": "app"}
	tests := []struct {
		name     string
		sent     *tfprotov6.ResourceIdentityData
		identity map[string]string
		ok       bool
	}{
		{name: "sent, equal", sent: encode("demo", "app"), identity: own, ok: true},
		{name: "sent, different", sent: encode("demo", "other"), identity: own},
		{name: "none sent", identity: own, ok: true},
		{name: "empty identity data sent", sent: &tfprotov6.ResourceIdentityData{}, identity: own, ok: true},
		{name: "attribute missing", identity: map[string]string{"name": "app"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := identityAnswer(typ, tt.sent, tt.identity)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			v, err := got.IdentityData.Unmarshal(typ)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := encode("demo", "app").IdentityData.Unmarshal(typ); !v.Equal(want) {
				t.Fatalf("identity %v, want %v", v, want)
			}
		})
	}
}
