package functions

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

var _ function.Function = &EffectiveSettings{}

// EffectiveSettings is provider::deckhouse::effective_settings.
type EffectiveSettings struct{}

// NewEffectiveSettings returns the effective_settings function.
func NewEffectiveSettings() function.Function { return &EffectiveSettings{} }

func (f *EffectiveSettings) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "effective_settings"
}

func (f *EffectiveSettings) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Effective settings of an application, as DP computes them",
		Description: "Validates the settings against a published settings schema (JSON or YAML, for example " +
			"`published_settings_schema` of a package version) as DP does on install, and returns the effective " +
			"settings: the settings with the schema defaults applied. Fails when DP would reject the settings.",
		Parameters: settingsFunctionParameters(),
		Return:     function.DynamicReturn{},
	}
}

// Run evaluates the settings.
func (f *EffectiveSettings) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	pkg, settings, ferr := functionInputs(ctx, req)
	if ferr != nil {
		resp.Error = ferr
		return
	}
	res := pkg.Evaluate(engine.Request{Settings: settings})
	if !res.OK() {
		msgs := make([]string, 0, len(res.Problems))
		for _, p := range res.Problems {
			msgs = append(msgs, problemLine(p))
		}
		resp.Error = function.NewArgumentFuncError(1, "DP rejects the settings: "+strings.Join(msgs, "; "))
		return
	}
	var eff any
	if res.Effective != nil {
		eff = res.Effective
	} else {
		eff = map[string]any{}
	}
	resp.Error = resp.Result.Set(ctx, convert.ToDynamic(eff))
}

// settingsFunctionParameters are the parameters both settings functions take.
func settingsFunctionParameters() []function.Parameter {
	return []function.Parameter{
		function.StringParameter{
			Name:        "settings_schema_json",
			Description: "The published settings schema (status.packageSchemas.settingsSchema.openAPIV3Schema) as JSON or YAML.",
		},
		function.DynamicParameter{
			Name:           "settings",
			Description:    "The user settings (Application.spec.settings): an object; pass `{}` for none (OpenTofu 1.12 drops a literal null argument before it reaches the provider).",
			AllowNullValue: true,
		},
	}
}

// functionInputs reads and checks the two arguments shared by the functions.
func functionInputs(ctx context.Context, req function.RunRequest) (*engine.Package, any, *function.FuncError) {
	var schemaText string
	var settingsArg types.Dynamic
	if ferr := req.Arguments.Get(ctx, &schemaText, &settingsArg); ferr != nil {
		return nil, nil, ferr
	}
	if strings.TrimSpace(schemaText) == "" {
		return nil, nil, function.NewArgumentFuncError(0, "settings_schema_json is empty: expected a published settings schema as JSON or YAML")
	}
	pkg, err := engine.LoadPublished([]byte(schemaText), nil)
	if err != nil {
		return nil, nil, function.NewArgumentFuncError(0, "invalid settings schema: "+err.Error())
	}
	settings, _, err := convert.FromDynamic(settingsArg)
	if err != nil {
		return nil, nil, function.NewArgumentFuncError(1, "reading settings: "+err.Error())
	}
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings.(map[string]any); !ok {
		return nil, nil, function.NewArgumentFuncError(1, fmt.Sprintf("settings must be an object, got %s", jsonvalue.TypeName(settings)))
	}
	return pkg, settings, nil
}

// problemLine renders a problem as "path: message (kind)".
func problemLine(p *engine.Problem) string {
	where := p.Path.String()
	if where == "" {
		where = "(root)"
	}
	return fmt.Sprintf("%s: %s (%s)", where, p.Message, p.Kind)
}
