package engine

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
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
//  3. Effective settings = settings.yaml defaults → project grant defaults →
//     user settings (sources 1-3), and grantable values the user gave are
//     checked against the project's catalog.
//  4. On update (HasPrevious): oldSelf rules (self = raw settings, oldSelf =
//     previous effective settings), immutability and enum switches, both on
//     effective settings against the previous effective settings.
//  5. Values = effective settings + values.yaml defaults for fields still
//     unset + hook values deep-merged over them; when hook values are given
//     the result is validated against the values schema including its CEL
//     rules.
//
// Unknown values (see Unknown) make the evaluation partial: what depends on
// them is skipped and listed in Result.Skipped, everything else is checked.
// With PreviousIsRaw the previous settings get the settings schema defaults
// before step 4, so both sides are effective settings.
//
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
	nraw, partial, err := normalizeDoc(raw)
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
		res.Problems = append(res.Problems, runRulesPartial(p.settings.rules, DocSettings, celWithoutOldSelf, userCEL, nil, false, schemaProblems, unknowns, nil, &res.Skipped)...)
	}

	// 3. Effective settings and grants.
	// Grant defaults sit between schema defaults and user values: injecting
	// them after the merge, only where the user left the field missing or
	// empty, gives the same result as merging the three sources in order.
	eff := applyDefaults(p.settings.node, user)
	var grantProblems []*Problem
	(&grantWalk{cat: req.Catalog, out: &grantProblems}).walk(p.settings.node, eff, user, nil)
	res.Problems = append(res.Problems, grantProblems...)
	if partial {
		res.Skipped = append(res.Skipped, grantSkips(p.settings.node, unknowns, req.Catalog)...)
	}
	res.Effective = eff

	// 4. Update checks.
	if req.HasPrevious {
		prev, prevPartial, perr := normalizeDoc(req.Previous)
		pm, isMap := prev.(map[string]any)
		switch {
		case perr != nil:
			res.Problems = append(res.Problems, documentProblem(DocPreviousSettings, perr, "previous settings"))
		case prev == Unknown{}:
			root := unknownSet{Path{}}
			if p.settings.rules != nil {
				runRulesPartial(p.settings.rules, DocSettings, celWithOldSelf, userCEL, prev, true, nil, nil, root, &res.Skipped)
			}
			res.Skipped = append(res.Skipped, immutableSkips(p.settings.node, DocPreviousSettings, root, eff)...)
			res.Skipped = append(res.Skipped, switchSkips(p.settings.node, DocPreviousSettings, root)...)
		case !isMap:
			res.Problems = append(res.Problems, &Problem{Document: DocPreviousSettings, Kind: KindType, Message: "previous settings must be an object", Rule: "type"})
		default:
			if req.PreviousIsRaw {
				pm = applyDefaults(p.settings.node, pm)
			}
			var prevUnknowns unknownSet
			if prevPartial {
				prevUnknowns = findUnknowns(pm)
			}
			if p.settings.rules != nil {
				res.Problems = append(res.Problems, runRulesPartial(p.settings.rules, DocSettings, celWithOldSelf, userCEL, celView(pm), true, schemaProblems, unknowns, prevUnknowns, &res.Skipped)...)
			}
			if partial || prevPartial {
				res.Skipped = append(res.Skipped, immutableSkips(p.settings.node, DocSettings, unknowns, pm)...)
				res.Skipped = append(res.Skipped, immutableSkips(p.settings.node, DocPreviousSettings, prevUnknowns, eff)...)
				res.Skipped = append(res.Skipped, switchSkips(p.settings.node, DocSettings, unknowns)...)
				res.Skipped = append(res.Skipped, switchSkips(p.settings.node, DocPreviousSettings, prevUnknowns)...)
			}
			(&immutableWalk{out: &res.Problems}).walk(p.settings.node, eff, true, pm, false, nil)
			(&switchWalk{out: &res.Switches}).walk(p.settings.node, eff, pm, nil)
			for _, sw := range res.Switches {
				if sw.Impact == ImpactDestructive && !req.AllowDestructiveSwitch {
					res.Problems = append(res.Problems, switchProblem(sw))
				}
			}
		}
	}

	// 5. Values.
	var hook map[string]any
	if req.HookValues != nil {
		nh, hookPartial, herr := normalizeDoc(req.HookValues)
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
			res.Problems = append(res.Problems, runRulesPartial(p.values.rules, DocHookValues, celWithoutOldSelf, celView(res.Values), nil, false, valuesProblems, valuesUnknowns, nil, &res.Skipped)...)
		}
	}

	sortProblems(res.Problems)
	sortSkipped(&res.Skipped)
	return res
}

// ValidateValues validates a complete values document (the .Values of the
// package: effective settings, values.yaml defaults and hook values) against
// the values schema as DP does when a hook changes values: the schema, then
// every x-deckhouse-validations rule of values.yaml (and of the settings
// root, through x-extend) that does not reference oldSelf. Nothing is
// defaulted: the document is checked as given. Problems are sorted and
// point into DocValues. Without a values schema DP checks nothing, and
// neither does ValidateValues. A document that is not an object, or not in
// the JSON data model, is one problem at the root; a panic (a bug) is one
// problem naming the package, never a crash.
func (p *Package) ValidateValues(values any) (problems []*Problem) {
	defer func() {
		if r := recover(); r != nil {
			problems = []*Problem{p.panicProblem(DocValues, r)}
		}
	}()
	if p.values == nil {
		return nil
	}
	if values == nil {
		values = map[string]any{}
	}
	nv, err := normalize(values)
	if err != nil {
		return []*Problem{documentProblem(DocValues, err, "values")}
	}
	m, ok := nv.(map[string]any)
	if !ok {
		return []*Problem{{Document: DocValues, Kind: KindType, Message: "values must be an object", Rule: "type"}}
	}
	problems = p.values.check(DocValues, m)
	sortProblems(problems)
	return problems
}

// check validates a normalized document against the schema, then runs the
// CEL rules that do not reference oldSelf.
func (d *schemaDoc) check(doc Document, v map[string]any) []*Problem {
	ps := d.validateNormalized(doc, v)
	if d.rules != nil {
		ps = append(ps, runRules(d.rules, doc, celWithoutOldSelf, celView(v), nil, false, ps)...)
	}
	return ps
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

// runRules runs one pass of CEL rules over a document; schemaProblems are
// the document's schema problems (see celRun.invalid).
func runRules(n *schemaNode, doc Document, mode celMode, self, old any, hasOld bool, schemaProblems []*Problem) []*Problem {
	r, cancel := newCELRun(doc, mode)
	defer cancel()
	for _, p := range schemaProblems {
		r.invalid = append(r.invalid, p.Path.String())
	}
	n.run(r, self, old, hasOld, make(Path, 0, 16), 0)
	return r.problems
}

func documentProblem(doc Document, err error, what string) *Problem {
	var deep *errTooDeep
	if errors.As(err, &deep) {
		return &Problem{Document: doc, Kind: KindSchema, Message: what + " are nested deeper than the limit of 1000 levels", Rule: "depth"}
	}
	return &Problem{Document: doc, Kind: KindType, Message: what + ": " + err.Error(), Rule: "type"}
}

func sortProblems(ps []*Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Document != b.Document {
			return a.Document < b.Document
		}
		if as, bs := a.Path.String(), b.Path.String(); as != bs {
			return as < bs
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Message < b.Message
	})
}
