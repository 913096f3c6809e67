package fastpath

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// semanticString is a string type whose values have semantic equality.
type (
	semanticStringType  struct{ basetypes.StringType }
	semanticStringValue struct{ basetypes.StringValue }
)

func (semanticStringType) ValueType(context.Context) attr.Value { return semanticStringValue{} }
func (semanticStringValue) StringSemanticEquals(context.Context, basetypes.StringValuable) (bool, diag.Diagnostics) {
	return true, nil
}

// The create shortcut leaves to the framework a schema whose values have
// semantic equality or whose write-only attributes are nested.
func TestCheckApply_RefusesWhatTheCreateShortcutDoesNotReproduce(t *testing.T) {
	tests := []struct {
		name    string
		attrs   map[string]schema.Attribute
		wantErr bool
	}{
		{name: "top-level write-only", attrs: map[string]schema.Attribute{"s": schema.StringAttribute{Optional: true, WriteOnly: true}}},
		{name: "nested write-only", attrs: map[string]schema.Attribute{"o": schema.SingleNestedAttribute{Optional: true,
			Attributes: map[string]schema.Attribute{"s": schema.StringAttribute{Optional: true, WriteOnly: true}}}}, wantErr: true},
		{name: "semantic equality", attrs: map[string]schema.Attribute{"s": schema.StringAttribute{Optional: true, CustomType: semanticStringType{}}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkApply(context.Background(), schema.Schema{Attributes: tt.attrs})
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, errUnsupportedApply)) {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
		})
	}
}

// A create's answer: the framework's errors for a create without errors
// that recorded no state or gave no identity, write-only values null in the
// state, the private keys with a value, and attribute paths of diagnostics.
func TestCreateResponse_AnswersAsTheFrameworksCreateResource(t *testing.T) {
	ctx := context.Background()
	info := schemaInfoFromSchema(ctx, schema.Schema{Attributes: map[string]schema.Attribute{
		"name":   schema.StringAttribute{Required: true},
		"secret": schema.StringAttribute{Optional: true, WriteOnly: true},
	}})
	info.identity = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}
	state := tftypes.NewValue(info.typ, map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, "a"), "secret": tftypes.NewValue(tftypes.String, "s3cret"),
	})
	var warned diag.Diagnostics
	warned.AddAttributeWarning(path.Root("name"), "Note", "about the name")

	tests := []struct {
		name        string
		out         created
		wantSummary []string
		wantPrivate string
		wantState   bool
	}{
		{name: "created", out: created{state: state, private: Private{"k": []byte(`"v"`), "gone": nil},
			identity: map[string]string{"name": "a"}, diags: warned},
			wantSummary: []string{"Note"}, wantPrivate: `{"k":"InYi"}`, wantState: true},
		{name: "no state without an error", out: created{state: tftypes.NewValue(info.typ, nil)},
			wantSummary: []string{"Missing Resource State After Create"}},
		{name: "no identity", out: created{state: state},
			wantSummary: []string{"Missing Resource Identity After Create"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := createResponse(ctx, info, tt.out, true)
			var got []string
			for _, d := range resp.Diagnostics {
				got = append(got, d.Summary)
			}
			if len(got) != len(tt.wantSummary) || (len(got) > 0 && got[0] != tt.wantSummary[0]) {
				t.Fatalf("diagnostics %v, want %v", got, tt.wantSummary)
			}
			if string(resp.Private) != tt.wantPrivate {
				t.Fatalf("private %s, want %s", resp.Private, tt.wantPrivate)
			}
			v, err := resp.NewState.Unmarshal(info.typ)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.wantState {
				return
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil || !attrs["secret"].IsNull() {
				t.Fatalf("state %v: the write-only value is not null", v)
			}
			if p := resp.Diagnostics[0].Attribute; p == nil || !p.Equal(tftypes.NewAttributePath().WithAttributeName("name")) {
				t.Fatalf("warning at %v, want name", p)
			}
			if resp.NewIdentity == nil || resp.NewIdentity.IdentityData == nil {
				t.Fatal("no identity")
			}
		})
	}
}

// The create shortcut reads only the write-only values of the
// configuration: each one decoded (null when the object lacks it), every
// other value skipped.
func TestWriteOnlyValues_DecodesOnlyTheWriteOnlyAttributes(t *testing.T) {
	ctx := context.Background()
	info := schemaInfoFromSchema(ctx, schema.Schema{Attributes: map[string]schema.Attribute{
		"name":   schema.StringAttribute{Required: true},
		"secret": schema.DynamicAttribute{Optional: true, WriteOnly: true},
	}})
	secret := tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"password": tftypes.String}},
		map[string]tftypes.Value{"password": tftypes.NewValue(tftypes.String, "s3cret")})
	for name, tc := range map[string]struct {
		attrs map[string]tftypes.Value
		want  tftypes.Value
	}{
		"given":   {map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, "a"), "secret": secret}, secret},
		"omitted": {map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, "a"), "secret": tftypes.NewValue(tftypes.DynamicPseudoType, nil)}, tftypes.NewValue(tftypes.DynamicPseudoType, nil)},
	} {
		t.Run(name, func(t *testing.T) {
			dv, err := tfprotov6.NewDynamicValue(info.typ, tftypes.NewValue(info.typ, tc.attrs))
			if err != nil {
				t.Fatal(err)
			}
			got, err := writeOnlyValues(dv.MsgPack, info)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || !got["secret"].Equal(tc.want) {
				t.Fatalf("got %v, want only secret = %v", got, tc.want)
			}
		})
	}
}
