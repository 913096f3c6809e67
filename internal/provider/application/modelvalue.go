package application

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
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
