package engine

import "github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"

// update is the state of step 4 of Evaluate, the checks of an update: the
// oldSelf rules, immutability and enum switches.
type update struct {
	p              *Package
	req            Request
	res            *Result
	user           map[string]any // the raw settings
	userCEL        any            // user as CEL sees it (nil without rules)
	schemaProblems []*Problem
	unknowns       unknownSet // Unknown paths of the raw settings
}

// run normalizes the previous documents and runs the update checks.
func (u *update) run() {
	p, res := u.p, u.res
	prev, prevPartial, err := jsonvalue.Normalize(u.req.Previous)
	pm, isMap := prev.(map[string]any)
	switch {
	case err != nil:
		res.Problems = append(res.Problems, documentProblem(DocPreviousSettings, err, "previous settings"))
		return
	case prev == Unknown{}:
		root := unknownSet{Path{}}
		u.runOldSelf(prev, root)
		res.Skipped = append(res.Skipped, immutableSkips(p.settings.node, DocPreviousSettings, root, u.user)...)
		res.Skipped = append(res.Skipped, switchSkips(p.settings.node, DocPreviousSettings, root)...)
		return
	case !isMap:
		res.Problems = append(res.Problems, &Problem{Document: DocPreviousSettings, Kind: KindType, Message: "previous settings must be an object", Rule: "type"})
		return
	}
	old, cur := immutableSides(p.settings.node, pm, u.user)
	var prevUnknowns unknownSet
	if prevPartial {
		prevUnknowns = findUnknowns(old)
	}
	u.runOldSelf(celView(pm), prevUnknowns)
	if u.unknowns != nil || prevPartial {
		res.Skipped = append(res.Skipped, immutableSkips(p.settings.node, DocSettings, u.unknowns, old)...)
		res.Skipped = append(res.Skipped, immutableSkips(p.settings.node, DocPreviousSettings, prevUnknowns, cur)...)
		res.Skipped = append(res.Skipped, switchSkips(p.settings.node, DocSettings, u.unknowns)...)
		res.Skipped = append(res.Skipped, switchSkips(p.settings.node, DocPreviousSettings, prevUnknowns)...)
	}
	(&immutableWalk{out: &res.Problems}).walk(p.settings.node, old, cur, nil)
	(&switchWalk{out: &res.Switches}).walk(p.settings.node, res.Effective, applyDefaults(p.settings.node, pm), nil)
	for _, sw := range res.Switches {
		if sw.Impact == ImpactDestructive && !u.req.AllowDestructiveSwitch {
			res.Problems = append(res.Problems, switchProblem(sw))
		}
	}
}

// runOldSelf runs the oldSelf rules with oldSelf bound to the previous raw
// settings (Request.PreviousRaw), or, when the caller has none, to
// Request.Previous as given (fallback, its CEL view, with its Unknown paths).
// On a version change it runs nothing and lists nothing as skipped: DP does
// not run these rules then (Request.VersionChange).
func (u *update) runOldSelf(fallback any, fallbackUnknowns unknownSet) {
	if u.p.settings.rules == nil || u.req.VersionChange {
		return
	}
	if !u.req.HasPreviousRaw {
		u.oldSelfRules(fallback, fallbackUnknowns)
		return
	}
	raw, rawPartial, err := jsonvalue.Normalize(u.req.PreviousRaw)
	switch rm, isMap := raw.(map[string]any); {
	case err != nil:
		u.res.Problems = append(u.res.Problems, documentProblem(DocPreviousSettings, err, "previous raw settings"))
	case raw == Unknown{}:
		u.oldSelfRules(raw, unknownSet{Path{}})
	case raw == nil:
		u.oldSelfRules(celView(map[string]any{}), nil)
	case !isMap:
		u.res.Problems = append(u.res.Problems, &Problem{Document: DocPreviousSettings, Kind: KindType, Message: "previous raw settings must be an object", Rule: "type"})
	default:
		var rawUnknowns unknownSet
		if rawPartial {
			rawUnknowns = findUnknowns(rm)
		}
		u.oldSelfRules(celView(rm), rawUnknowns)
	}
}

// oldSelfRules runs the rules that reference oldSelf, old being the CEL
// view of the previous document and oldUnknowns its Unknown paths.
func (u *update) oldSelfRules(old any, oldUnknowns unknownSet) {
	if u.p.settings.rules == nil {
		return
	}
	pass := celPass{node: u.p.settings.rules, doc: DocSettings, mode: celWithOldSelf, self: u.userCEL, old: old, hasOld: true,
		schemaProblems: u.schemaProblems, unknowns: u.unknowns, oldUnknowns: oldUnknowns, skipped: &u.res.Skipped}
	if old == (Unknown{}) {
		pass.schemaProblems, pass.unknowns = nil, nil
		u.res.Problems = append(u.res.Problems, pass.run()...) // every rule is skipped
		return
	}
	u.res.Problems = append(u.res.Problems, pass.run()...)
}
