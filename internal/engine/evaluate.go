package engine

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// Evaluate runs DP's whole pipeline on one request. The order is a decision
// and follows DP, not kube-apiserver (which defaults before validating):
//
//  1. Settings nil → {}; settings that are not an object → one problem at the
//     root, and nothing else is computed.
//  2. The raw settings (before any default) are validated against the
//     settings schema, then checked by every CEL rule that does not
//     reference oldSelf. As in DP's validator (go-openapi), an absent
//     required property that declares a non-null default counts as present;
//     a CEL rule sees only what the user wrote.
//  3. Effective settings = settings.yaml defaults, then project grant
//     defaults where a bound field is still absent or "", then user
//     settings (sources 1-3); grantable values the user gave are checked
//     against the project's catalog (grant.go).
//  4. On update (HasPrevious): oldSelf rules (self = raw settings, oldSelf =
//     the previous raw settings, Request.PreviousRaw; none on a version
//     change, Request.VersionChange), immutability (both sides with schema
//     defaults, immutable.go) and enum switches (update.go).
//  5. Values = effective settings + values.yaml defaults for fields still
//     unset + hook values deep-merged over them; when hook values are given
//     the result is validated against the values schema including its CEL
//     rules.
//
// Unknown values (see Unknown) make the evaluation partial: what depends on
// them is skipped and listed in Result.Skipped, everything else is checked.
// Problems are sorted by document, path, kind and message. Evaluate never
// panics: inputs outside the JSON data model, or nested deeper than
// maxValueDepth levels, become problems, and a panic inside (a bug) becomes
// one problem naming the package.
func (p *Package) Evaluate(req Request) (res *Result) {
	res = &Result{}
	defer func() {
		if r := recover(); r != nil {
			res = &Result{Problems: []*Problem{p.panicProblem(DocSettings, r)}}
		}
	}()
	raw := req.Settings
	if raw == nil {
		raw = map[string]any{}
	}
	nraw, partial, err := jsonvalue.Normalize(raw)
	if err != nil {
		res.Problems = append(res.Problems, documentProblem(DocSettings, err, "settings"))
		return res
	}
	if _, unknown := nraw.(Unknown); unknown {
		p.evaluateUnknownSettings(req, res)
		return res
	}
	user, ok := nraw.(map[string]any)
	if !ok {
		res.Problems = append(res.Problems, &Problem{Document: DocSettings, Kind: KindType, Message: "settings must be an object", Rule: "type"})
		return res
	}

	// 2. Schema and CEL on the raw settings.
	var unknowns unknownSet // paths of the Unknown values of the settings (and so of eff)
	if partial {
		unknowns = findUnknowns(user)
	}
	schemaProblems := p.settings.validatePartial(DocSettings, user, unknowns, &res.Skipped)
	res.Problems = append(res.Problems, schemaProblems...)
	var userCEL any
	if p.settings.rules != nil {
		userCEL = celView(user)
		res.Problems = append(res.Problems, celPass{node: p.settings.rules, doc: DocSettings, mode: celWithoutOldSelf, self: userCEL,
			schemaProblems: schemaProblems, unknowns: unknowns, skipped: &res.Skipped}.run()...)
	}

	// 3. Effective settings and grants.
	eff := applyDefaults(p.settings.node, user)
	(&grantRun{cat: req.Catalog, problems: &res.Problems, warnings: &res.Warnings}).apply(p.settings.node, eff, user)
	if partial {
		res.Skipped = append(res.Skipped, grantSkips(p.settings.node, unknowns, req.Catalog)...)
	}
	res.Effective = eff

	// 4. Update checks.
	if req.HasPrevious {
		u := &update{p: p, req: req, res: res, user: user, userCEL: userCEL, schemaProblems: schemaProblems, unknowns: unknowns}
		u.run()
	}

	// 5. Values.
	p.evaluateValues(req, res, eff, partial)

	sortProblems(res.Problems)
	sortProblems(res.Warnings)
	sortSkipped(&res.Skipped)
	return res
}

// evaluateValues is step 5 of Evaluate: the values (effective settings,
// values.yaml defaults, hook values), validated against the values schema
// when hook values are given; partial says the settings held an Unknown.
func (p *Package) evaluateValues(req Request, res *Result, eff map[string]any, partial bool) {
	var hook map[string]any
	if req.HookValues != nil {
		nh, hookPartial, herr := jsonvalue.Normalize(req.HookValues)
		partial = partial || hookPartial
		hm, isMap := nh.(map[string]any)
		switch {
		case herr != nil:
			res.Problems = append(res.Problems, documentProblem(DocHookValues, herr, "hook values"))
		case !isMap:
			res.Problems = append(res.Problems, &Problem{Document: DocHookValues, Kind: KindType, Message: "hook values must be an object", Rule: "type"})
		default:
			hook = hm
		}
	}
	var valuesNode *schemaNode
	if p.values != nil {
		valuesNode = p.values.node
	}
	res.Values = assembleValues(valuesNode, eff, hook)
	if hook != nil && p.values != nil {
		var valuesUnknowns unknownSet
		if partial {
			valuesUnknowns = findUnknowns(res.Values)
		}
		valuesProblems := p.values.validatePartial(DocHookValues, res.Values, valuesUnknowns, &res.Skipped)
		res.Problems = append(res.Problems, valuesProblems...)
		if p.values.rules != nil {
			res.Problems = append(res.Problems, celPass{node: p.values.rules, doc: DocHookValues, mode: celWithoutOldSelf, self: celView(res.Values),
				schemaProblems: valuesProblems, unknowns: valuesUnknowns, skipped: &res.Skipped}.run()...)
		}
	}
}

// panicProblem turns a panic (a bug, or a library failing on some input)
// into one problem that names the package, so a caller never crashes. Only
// a runtime error's text is kept: any other panic value could hold a value
// of the document.
func (p *Package) panicProblem(doc Document, r any) *Problem {
	detail := fmt.Sprintf("%T", r)
	if re, ok := r.(runtime.Error); ok {
		detail = re.Error()
	}
	return &Problem{Document: doc, Kind: KindSchema, Rule: "internal",
		Message: fmt.Sprintf("internal error while evaluating against %s: %s", p.describe(), detail)}
}

func documentProblem(doc Document, err error, what string) *Problem {
	if errors.Is(err, jsonvalue.ErrTooDeep) {
		return &Problem{Document: doc, Kind: KindSchema, Message: what + " are nested deeper than the limit of 1000 levels", Rule: "depth"}
	}
	return &Problem{Document: doc, Kind: KindType, Message: what + ": " + err.Error(), Rule: "type"}
}

func sortProblems(ps []*Problem) {
	slices.SortStableFunc(ps, func(a, b *Problem) int {
		return cmp.Or(cmp.Compare(a.Document, b.Document), cmp.Compare(a.Path.String(), b.Path.String()),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Message, b.Message))
	})
}
