package functions

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

var _ function.Function = &ValidateSettings{}

// problemAttrTypes is the object type of one element of validate_settings.
var problemAttrTypes = map[string]attr.Type{
	"path":    types.StringType,
	"message": types.StringType,
	"kind":    types.StringType,
}

// ValidateSettings is provider::deckhouse::validate_settings.
type ValidateSettings struct{}

// NewValidateSettings returns the validate_settings function.
func NewValidateSettings() function.Function { return &ValidateSettings{} }

func (f *ValidateSettings) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "validate_settings"
}

func (f *ValidateSettings) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Problems DP finds in application settings",
		Description: "Validates the settings against a published settings schema (JSON or YAML) as DP does on install " +
			"and returns the list of problems, empty when DP accepts the settings. Each problem has the `path` of the " +
			"offending value inside the settings (DP's notation, e.g. `postgres.storageClass`, empty for the root), " +
			"the `message` DP reports and the `kind` of rule (undeclared, type, enum, pattern, required, cel, schema, ...).",
		Parameters: settingsFunctionParameters(),
		Return:     function.ListReturn{ElementType: types.ObjectType{AttrTypes: problemAttrTypes}},
	}
}

// Run evaluates the settings.
func (f *ValidateSettings) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	pkg, settings, ferr := functionInputs(ctx, req)
	if ferr != nil {
		resp.Error = ferr
		return
	}
	res := pkg.Evaluate(engine.Request{Settings: settings})
	resp.Error = resp.Result.Set(ctx, problemList(res.Problems))
}

// problemList converts problems into the function's list value.
func problemList(problems []*engine.Problem) types.List {
	elems := make([]attr.Value, 0, len(problems))
	for _, p := range problems {
		elems = append(elems, types.ObjectValueMust(problemAttrTypes, map[string]attr.Value{
			"path":    types.StringValue(p.Path.String()),
			"message": types.StringValue(p.Message),
			"kind":    types.StringValue(string(p.Kind)),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: problemAttrTypes}, elems)
}
