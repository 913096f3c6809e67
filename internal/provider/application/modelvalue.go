package application

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

// modelObject converts applicationModel to and from the schema's object once
// per call with no reflection on the struct's tags (the framework's Get and
// Set look them up every time): the plan, the apply and the refresh of every
// Application decode and encode the model. An error here is a model that
// does not match the schema, which the tests catch; the framework's Get and
// Set then do the work.
var modelObject = sync.OnceValues(func() (*convert.Object[applicationModel], error) {
	ctx := context.Background()
	var resp resource.SchemaResponse
	(&Resource{}).Schema(ctx, resource.SchemaRequest{}, &resp)
	return convert.NewObject[applicationModel](ctx, resp.Schema.Type())
})

// getter is tfsdk.Plan or tfsdk.State; setter is *tfsdk.Plan or *tfsdk.State.
type (
	getter interface {
		Get(ctx context.Context, target any) diag.Diagnostics
	}
	setter interface {
		Set(ctx context.Context, val any) diag.Diagnostics
	}
)

// getModel decodes the plan or state src into m, as src.Get(ctx, m) does.
func getModel(ctx context.Context, src getter, m *applicationModel) diag.Diagnostics {
	var raw tftypes.Value
	switch s := src.(type) {
	case tfsdk.Plan:
		raw = s.Raw
	case tfsdk.State:
		raw = s.Raw
	default:
		return src.Get(ctx, m)
	}
	if o, err := modelObject(); err == nil && raw.IsKnown() && !raw.IsNull() {
		if o.Decode(ctx, raw, m) == nil {
			return nil
		}
	}
	return src.Get(ctx, m)
}

// setModel stores m in the plan or state dst, as dst.Set(ctx, m) does.
func setModel(ctx context.Context, dst setter, m *applicationModel) diag.Diagnostics {
	if o, err := modelObject(); err == nil {
		if v, err := o.Encode(ctx, m); err == nil {
			return dst.Set(ctx, v)
		}
	}
	return dst.Set(ctx, m)
}

// setModelOver stores m in the state dst as setModel does, for an m decoded
// from base, the planned state of a create, which changes only the
// attributes of createFills: those are encoded again, the others kept as
// base holds them. The value is of the schema's type (modelObject's), which
// Set would check against the schema's, built again for the check.
func setModelOver(ctx context.Context, dst *tfsdk.State, base tftypes.Value, m *applicationModel) diag.Diagnostics {
	if o, err := modelObject(); err == nil {
		if v, err := o.EncodeOver(ctx, base, m, createFills...); err == nil {
			dst.Raw = v
			return nil
		}
	}
	return setModel(ctx, dst, m)
}

// sensitiveConfig is the configuration's sensitive_settings, read from its
// value as config.GetAttribute reads it, without the framework's lookup of
// the path in the schema and the value.
func sensitiveConfig(ctx context.Context, config tfsdk.Config) (types.Dynamic, diag.Diagnostics) {
	var attrs map[string]tftypes.Value
	if config.Raw.IsKnown() && !config.Raw.IsNull() && config.Raw.As(&attrs) == nil {
		if v, ok := attrs["sensitive_settings"]; ok {
			if dv, err := types.DynamicType.ValueFromTerraform(ctx, v); err == nil {
				if d, ok := dv.(types.Dynamic); ok {
					return d, nil
				}
			}
		}
	}
	var sensitive types.Dynamic
	diags := config.GetAttribute(ctx, path.Root("sensitive_settings"), &sensitive)
	return sensitive, diags
}

// identityTFType is the Terraform type of the resource's identity.
var identityTFType = sync.OnceValue(func() tftypes.Type {
	ctx := context.Background()
	var resp resource.IdentitySchemaResponse
	(&Resource{}).IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &resp)
	return resp.IdentitySchema.Type().TerraformType(ctx)
})

// setIdentity stores the identity of m (namespace and name) in dst, as
// dst.Set(ctx, applicationIdentity{...}) does, without Set's reflection and
// the identity schema's type built again.
func setIdentity(ctx context.Context, dst *tfsdk.ResourceIdentity, m *applicationModel) diag.Diagnostics {
	ns, nsErr := m.Namespace.ToTerraformValue(ctx)
	name, nameErr := m.Name.ToTerraformValue(ctx)
	if nsErr != nil || nameErr != nil {
		return dst.Set(ctx, applicationIdentity{Namespace: m.Namespace, Name: m.Name})
	}
	dst.Raw = tftypes.NewValue(identityTFType(), map[string]tftypes.Value{"namespace": ns, "name": name})
	return nil
}
