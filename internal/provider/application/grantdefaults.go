package application

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpapi"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/dpclient"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/convert"
	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"
)

// A project default (the default of an AvailableClusterResource, for a field
// bound by x-deckhouse-grantable-resource that the settings leave out) is in
// the plan's effective_settings: DP injects it when it applies the settings.
// A project administrator may change it between plan and apply. The CLI
// plans each resource again at apply, and that plan reads the grant again:
// a changed default then stops the resource with the CLI's "Provider
// produced inconsistent final plan" naming .effective_settings (its two JSON documents),
// before anything is written (the protocol does not tell the provider what
// the earlier plan held, so it cannot speak first there). Right before the
// write the apply reads the grant once more (once per namespace and
// resource per apply) and refuses, naming the field, when the default is not
// the one its plan shows.

// grantDefaultMoved is one field whose project default is not the planned one.
type grantDefaultMoved struct {
	field    string // settings.<a.b>
	at       engine.Path
	resource string
	planned  string
	now      string // "" = no project default now
}

// checkGrantDefaults refuses a write whose planned effective settings hold a
// project default that the grant catalog no longer gives. settings are the
// settings written (with sensitive_settings merged), effective the planned
// effective settings. Anything it cannot read leaves the verdict to DP.
func checkGrantDefaults(ctx context.Context, cl *dpclient.Client, in checkInput, settings any, effective map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	if in.repository == "" || len(effective) == 0 {
		return diags
	}
	apv, err := cl.PackageVersion(ctx, dpapi.PackageVersionName(in.repository, in.packageName, in.version))
	if err != nil || apv.Package == nil {
		return diags
	}
	moved := grantDefaultsMoved(apv.Package, settings, effective, func(resource string) (engine.GrantCatalog, bool, error) {
		g, err := cl.GrantCatalogAtWrite(ctx, in.namespace, resource)
		return g.Catalog, g.Found, err
	})
	for _, m := range moved {
		now := fmt.Sprintf("is now %q", m.now)
		if m.now == "" {
			now = "is gone"
		}
		diags.AddAttributeError(diagnostics.AttributePath(path.Root("settings"), m.at), "Project default changed since the plan: "+m.field,
			fmt.Sprintf("The plan showed %s = %q in effective_settings, the default of namespace %q for resource %q "+
				"(AvailableClusterResource %q), which DP injects because the settings leave %s out. That default %s. "+
				"Nothing was written: run the plan again to see and apply the new default, or set %s in settings.",
				m.field, m.planned, in.namespace, m.resource, m.resource, m.field, now, m.field))
	}
	return diags
}

// grantDefaultsMoved lists the fields bound to a project grant that settings
// leave absent or "" and whose value in effective (a string: a value the
// plan took from the grant or from a schema default) differs from what DP
// would inject with the catalogs catalog returns. A catalog that cannot be
// read is skipped.
func grantDefaultsMoved(pkg *engine.Package, settings any, effective map[string]any,
	catalog func(resource string) (engine.GrantCatalog, bool, error),
) []grantDefaultMoved {
	cat := engine.Catalog{}
	read, unreadable := map[string]bool{}, map[string]bool{}
	type bound struct {
		keys     []string
		at       engine.Path
		resource string
		planned  string
	}
	var fields []bound
	for _, f := range pkg.Fields() {
		keys := grantKeys(f)
		if keys == nil {
			continue
		}
		if v, given := lookupPath(settings, keys); given && v != "" {
			continue
		}
		planned, ok := lookupPath(effective, keys)
		s, isString := planned.(string)
		if !ok || !isString {
			continue
		}
		if !read[f.GrantableResource] {
			read[f.GrantableResource] = true
			g, found, err := catalog(f.GrantableResource)
			switch {
			case err != nil:
				unreadable[f.GrantableResource] = true
			case found:
				cat[f.GrantableResource] = g
			}
		}
		if unreadable[f.GrantableResource] {
			continue
		}
		fields = append(fields, bound{keys: keys, at: f.Path, resource: f.GrantableResource, planned: s})
	}
	if len(fields) == 0 {
		return nil
	}
	res := pkg.Evaluate(engine.Request{Settings: settings, Catalog: cat})
	var out []grantDefaultMoved
	for _, b := range fields {
		v, _ := lookupPath(res.Effective, b.keys)
		now, _ := v.(string)
		if now != b.planned {
			out = append(out, grantDefaultMoved{field: "settings." + strings.Join(b.keys, "."), at: b.at, resource: b.resource, planned: b.planned, now: now})
		}
	}
	return out
}

// grantKeys is the key path of a field bound to a project grant, nil for
// any other field and for one below an array or a map (DP binds only along
// properties).
func grantKeys(f engine.Field) []string {
	if f.GrantableResource == "" {
		return nil
	}
	var keys []string
	for _, seg := range f.Path {
		if seg.IsIndex || seg.Key == "*" {
			return nil
		}
		keys = append(keys, seg.Key)
	}
	return keys
}

// checkGrantDefaultsAtWrite runs checkGrantDefaults for the write of plan
// over prior (nil for a create) with settings (sensitive_settings merged),
// when the plan computed effective_settings and they are known. An update
// of anything else (labels, a pending update written again) keeps the
// effective settings of the state, which DP does not apply again.
func checkGrantDefaultsAtWrite(ctx context.Context, cl *dpclient.Client, plan, prior *applicationModel, settings any) diag.Diagnostics {
	if prior != nil && !specChanged(plan, prior) {
		return nil
	}
	v, known, err := convert.FromJSONString(plan.EffectiveSettings)
	effective, isMap := v.(map[string]any)
	if err != nil || !known || !isMap {
		return nil
	}
	in := checkInputFromModel(plan, nil, nil, nil)
	return checkGrantDefaults(ctx, cl, in, settings, effective)
}
