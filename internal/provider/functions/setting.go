package functions

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
)

var _ function.Function = &Setting{}

// Setting is provider::deckhouse::setting: one value of a settings document
// by its path, an error naming the path when it is not there (where
// try(jsondecode(doc).key, null) gives null for a misspelt key too).
type Setting struct{}

// NewSetting returns the setting function.
func NewSetting() function.Function { return &Setting{} }

func (f *Setting) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "setting"
}

func (f *Setting) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "One setting of a settings document, by its path",
		Description: "Returns the value at `path` in a settings document: the `effective_settings` or " +
			"`last_applied_settings` JSON string of the resource `deckhouse_application`, any JSON document, or an " +
			"object (`effective_settings` of the data source `deckhouse_application`, the result of " +
			"`effective_settings()`). The path is DP's notation: keys " +
			"joined by dots, array indices in brackets (`postgres.storageClass`, `hosts[0].name`); the empty path is " +
			"the whole document. A path that is not in the document is an error naming the path and the keys there, " +
			"so a misspelt key does not pass as null; with a `default` (the optional third argument) the default is " +
			"returned instead, and also for a null document (the resource's `effective_settings` after an import, " +
			"until the first apply). A setting that is present and null is null.",
		Parameters: []function.Parameter{
			function.DynamicParameter{
				Name:           "document",
				Description:    "The settings: a JSON string (such as `effective_settings`) or an object.",
				AllowNullValue: true,
			},
			function.StringParameter{
				Name:        "path",
				Description: "Where the setting is, in DP's notation: `a.b`, `a.b[0].c`; empty for the whole document.",
			},
		},
		VariadicParameter: function.DynamicParameter{
			Name:           "default",
			Description:    "At most one value, returned when the path is not in the document or the document is null.",
			AllowNullValue: true,
		},
		Return: function.DynamicReturn{},
	}
}

// Run looks the setting up.
func (f *Setting) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var docArg types.Dynamic
	var path string
	var defaults []types.Dynamic
	if ferr := req.Arguments.Get(ctx, &docArg, &path, &defaults); ferr != nil {
		resp.Error = ferr
		return
	}
	if len(defaults) > 1 {
		resp.Error = function.NewArgumentFuncError(2, fmt.Sprintf("setting takes at most one default, got %d", len(defaults)))
		return
	}
	segs, err := parseSettingPath(path)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(1, err.Error())
		return
	}
	doc, err := settingsDocument(docArg)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	val, missing := lookUp(doc, segs)
	if missing != "" {
		if len(defaults) == 1 {
			resp.Error = resp.Result.Set(ctx, defaults[0])
			return
		}
		resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf("no setting at %q: %s; give a default as the third argument "+
			"when the setting may be absent", path, missing))
		return
	}
	resp.Error = resp.Result.Set(ctx, convert.ToDynamic(val))
}

// settingsDocument is the document argument in the JSON data model: a
// string is decoded as JSON; nil for a null document.
func settingsDocument(arg types.Dynamic) (any, error) {
	if arg.IsNull() || arg.IsUnderlyingValueNull() {
		return nil, nil
	}
	if s, ok := arg.UnderlyingValue().(types.String); ok {
		v, err := jsonvalue.Decode([]byte(s.ValueString()))
		if err != nil {
			return nil, fmt.Errorf("the document is a string that is not JSON: %w", err)
		}
		return v, nil
	}
	v, _, err := convert.FromDynamic(arg)
	if err != nil {
		return nil, fmt.Errorf("reading the document: %w", err)
	}
	return v, nil
}

// parseSettingPath reads DP's notation of a path: keys joined by dots, each
// followed by any number of [index]. The empty path is the root.
func parseSettingPath(s string) (engine.Path, error) {
	var p engine.Path
	if s == "" {
		return p, nil
	}
	for i, part := range strings.Split(s, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" && (i > 0 || rest == "") {
			return nil, fmt.Errorf("path %q has an empty key", s)
		}
		if key != "" {
			p = p.Key(key)
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(idx)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: %q is not an array index", s, "["+idx+"]")
			}
			p = p.Index(n)
			if after == "" {
				break
			}
			if !strings.HasPrefix(after, "[") {
				return nil, fmt.Errorf("path %q: %q follows an index; join keys with dots", s, after)
			}
			rest = after[1:]
		}
	}
	return p, nil
}

// lookUp returns the value at p in doc, or why it is not there ("" when it
// is): the first segment missing and what its parent holds.
func lookUp(doc any, p engine.Path) (any, string) {
	if doc == nil && len(p) > 0 {
		return nil, "the document is null"
	}
	cur := doc
	for i, seg := range p {
		parent := p[:i].String()
		if parent == "" {
			parent = "the document"
		}
		switch v := cur.(type) {
		case map[string]any:
			if seg.IsIndex {
				return nil, fmt.Sprintf("%s is an object, not an array", parent)
			}
			next, ok := v[seg.Key]
			if !ok {
				return nil, fmt.Sprintf("%s has no key %q (it has: %s)", parent, seg.Key, keysOf(v))
			}
			cur = next
		case []any:
			if !seg.IsIndex {
				return nil, fmt.Sprintf("%s is an array, not an object with key %q", parent, seg.Key)
			}
			if seg.Index >= len(v) {
				return nil, fmt.Sprintf("%s has %d elements, no [%d]", parent, len(v), seg.Index)
			}
			cur = v[seg.Index]
		default:
			return nil, fmt.Sprintf("%s is %s, not an object or an array", parent, jsonvalue.TypeName(cur))
		}
	}
	return cur, ""
}

// keysOf lists an object's keys, sorted; "no keys" for an empty one.
func keysOf(m map[string]any) string {
	if len(m) == 0 {
		return "no keys"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}
