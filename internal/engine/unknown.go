package engine

import (
	"cmp"
	"slices"
)

// Partial evaluation: documents holding Unknown values (see request.go).
//
// Every walker of the pipeline sees Unknown{} as an opaque value and leaves
// it alone (no default fills it, no grant replaces it, no comparison is made
// with it). Which checks were not run is found here, from the paths of the
// unknown values, by following the schema along each path and below it.
// Documents without an Unknown never reach this file.

// The words of Skipped.Check.
const (
	checkSchema       = "schema"
	checkCEL          = "CEL rule"
	checkGrant        = "grant"
	checkImmutability = "immutability"
	checkEnumSwitch   = "enum switch"
)

// unknownSet lists the paths of the Unknown values of one document, in
// document order (keys sorted); nil when the document has none.
type unknownSet []Path

// findUnknowns returns the paths of every Unknown in v.
func findUnknowns(v any) unknownSet {
	var out unknownSet
	var walk func(v any, p Path, depth int)
	walk = func(v any, p Path, depth int) {
		if depth > maxValueDepth {
			return
		}
		switch x := v.(type) {
		case Unknown:
			out = append(out, append(Path(nil), p...))
		case map[string]any:
			for _, k := range sortedKeys(x) {
				walk(x[k], append(p, Segment{Key: k}), depth+1)
			}
		case []any:
			for i, e := range x {
				walk(e, append(p, Segment{Index: i, IsIndex: true}), depth+1)
			}
		}
	}
	walk(v, make(Path, 0, 16), 0)
	return out
}

func hasPrefix(p, prefix Path) bool {
	return len(prefix) <= len(p) && slices.Equal(p[:len(prefix)], prefix)
}

// under returns the first unknown at p or below it.
func (u unknownSet) under(p Path) (Path, bool) {
	for _, x := range u {
		if hasPrefix(x, p) {
			return x, true
		}
	}
	return nil, false
}

// covering returns the unknown at p or at an ancestor of p.
func (u unknownSet) covering(p Path) (Path, bool) {
	for _, x := range u {
		if hasPrefix(p, x) {
			return x, true
		}
	}
	return nil, false
}

// withoutUnknowns copies v with every Unknown replaced by null, the value
// the schema validator is given in its place: null is checked only against
// type/nullable and enum, and those problems are dropped (see
// problemCollector.dependsOnUnknown); a key holding null is present.
func withoutUnknowns(v any) any {
	switch x := v.(type) {
	case Unknown:
		return nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = withoutUnknowns(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutUnknowns(e)
		}
		return out
	}
	return v
}

// validatePartial is validateNormalized for a document whose Unknown values
// are at unknowns: problems that depend on them are dropped and the schema
// checks not run are appended to skipped.
func (d *schemaDoc) validatePartial(doc Document, nv any, unknowns unknownSet, skipped *[]Skipped) []*Problem {
	if len(unknowns) == 0 {
		return d.validateNormalized(doc, nv)
	}
	if d == nil || d.compiled == nil {
		return nil
	}
	*skipped = append(*skipped, schemaSkips(d.node, doc, unknowns)...)
	subst := withoutUnknowns(nv)
	err := d.compiled.Validate(subst)
	if err == nil {
		return nil
	}
	c := &problemCollector{doc: doc, d: d, root: subst, unknowns: unknowns}
	if ve, ok := asValidationError(err); ok {
		c.collect(ve)
	}
	sortProblems(c.out)
	return c.out
}

// Keywords of an object or array whose outcome depends on the values inside it.
var valueDependentKeywords = []string{"anyOf", "enum", "not", "oneOf", "uniqueItems"}

// Keywords that assert something of a value (annotations and extensions left out).
var assertingKeywords = []string{
	"additionalItems", "additionalProperties", "allOf", "anyOf", "dependencies", "enum", "format",
	"items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems", "minLength",
	"minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern", "patternProperties",
	"properties", "required", "type", "uniqueItems",
}

// schemaSkips lists the schema keywords not checked because of unknowns:
// those of each unknown value's own schema, and the value-dependent ones of
// the schemas of the objects and arrays containing it.
func schemaSkips(root *schemaNode, doc Document, unknowns unknownSet) []Skipped {
	var out []Skipped
	for _, u := range unknowns {
		node := root
		for i := 0; i <= len(u) && node != nil; i++ {
			here := u[:i]
			kws := valueDependentKeywords
			if i == len(u) {
				kws = assertingKeywords
			}
			for _, kw := range kws {
				if _, has := node.raw[kw]; has {
					out = append(out, Skipped{Document: doc, Path: append(Path(nil), here...), Check: checkSchema, Rule: kw, Unknown: u})
				}
			}
			if i < len(u) {
				node = node.step(u[i])
			}
		}
	}
	return out
}

// step returns the node of one path segment below n.
func (n *schemaNode) step(seg Segment) *schemaNode {
	if seg.IsIndex {
		return n.element(seg.Index)
	}
	return n.entry(seg.Key)
}

// walkBelow calls fn for n and every node below it through properties
// (extending the path), and items and additionalProperties /
// patternProperties (keeping the path: the element is not known).
func (n *schemaNode) walkBelow(p Path, depth int, fn func(n *schemaNode, p Path)) {
	n.walkBelowOnce(p, depth, map[*schemaNode]bool{}, fn)
}

// walkBelowOnce is walkBelow that enters no node already on the current
// path (onPath), so a recursive schema is followed once around a cycle.
func (n *schemaNode) walkBelowOnce(p Path, depth int, onPath map[*schemaNode]bool, fn func(n *schemaNode, p Path)) {
	if n == nil || depth > 64 || onPath[n] {
		return
	}
	onPath[n] = true
	defer delete(onPath, n)
	fn(n, p)
	for _, k := range n.propNames {
		n.props[k].walkBelowOnce(p.Key(k), depth+1, onPath, fn)
	}
	n.items.walkBelowOnce(p, depth+1, onPath, fn)
	n.additional.walkBelowOnce(p, depth+1, onPath, fn)
	for _, pn := range n.patterns {
		pn.node.walkBelowOnce(p, depth+1, onPath, fn)
	}
}

// grantSkips lists the bindings (see collectGrants) at or below an
// unknown value of the settings whose catalog would inject a default or
// check the value.
func grantSkips(root *schemaNode, unknowns unknownSet, cat Catalog) []Skipped {
	var out []Skipped
	for _, u := range unknowns {
		for _, g := range root.grantPaths() {
			if _, ok := cat[g.resource]; ok && hasPrefix(g.path, u) {
				out = append(out, Skipped{Document: DocSettings, Path: g.path, Check: checkGrant, Rule: extGrantable, Unknown: u})
			}
		}
	}
	return out
}

// immutableSkips lists, on update, the immutable values not compared
// because the new value (in doc settings) or the previous value (in doc
// previous_settings) is unknown while the other side has a value.
func immutableSkips(root *schemaNode, doc Document, unknowns unknownSet, other any) []Skipped {
	var out []Skipped
	for _, u := range unknowns {
		node, frozen := root, false
		o := other
		for _, seg := range u {
			if node != nil && node.immutable {
				frozen = true
			}
			node = node.step(seg)
			o = valueAt(o, seg)
		}
		if o == nil {
			continue // the other side never had a value: nothing to compare
		}
		if frozen || node.mayHoldImmutable() {
			out = append(out, Skipped{Document: doc, Path: u, Check: checkImmutability, Rule: extImmutable, Unknown: u})
		}
	}
	return out
}

func valueAt(v any, seg Segment) any {
	if seg.IsIndex {
		if l, ok := v.([]any); ok && seg.Index < len(l) {
			return l[seg.Index]
		}
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		return m[seg.Key]
	}
	return nil
}

// switchSkips lists, on update, the enum switches whose discriminator is
// unknown or lies below an unknown value.
func switchSkips(root *schemaNode, doc Document, unknowns unknownSet) []Skipped {
	var out []Skipped
	add := func(n *schemaNode, p Path, u Path) {
		if n == nil {
			return
		}
		for _, b := range n.switches {
			if d := p.Key(b.key); hasPrefix(d, u) {
				out = append(out, Skipped{Document: doc, Path: d, Check: checkEnumSwitch, Rule: extEnumSwitch, Unknown: u})
			}
		}
	}
	for _, u := range unknowns {
		node := root
		for i, seg := range u {
			add(node, u[:i], u) // the discriminator of an ancestor may be the unknown
			node = node.step(seg)
		}
		node.walkBelow(u, 0, func(n *schemaNode, p Path) { add(n, p, u) })
	}
	return out
}

// skipRules lists every rule of n and below (of the pass's mode) as skipped
// because of the unknown value u.
func (n *schemaNode) skipRules(r *celRun, path Path, u Path, depth int) {
	if !n.ruled() || depth > maxValueDepth || r.skipping[n] {
		return
	}
	if r.skipping == nil {
		r.skipping = map[*schemaNode]bool{}
	}
	r.skipping[n] = true // a recursive schema is followed once around a cycle
	defer delete(r.skipping, n)
	for _, rule := range n.rules {
		if rule.usesOld == (r.mode == celWithOldSelf) {
			r.skip(rule, path, u)
		}
	}
	for _, k := range n.ruleProps {
		n.props[k].skipRules(r, path.Key(k), u, depth+1)
	}
	n.items.skipRules(r, path, u, depth+1)
	for _, t := range n.tuple {
		t.skipRules(r, path, u, depth+1)
	}
	n.additional.skipRules(r, path, u, depth+1)
	for _, pn := range n.patterns {
		pn.node.skipRules(r, path, u, depth+1)
	}
	for _, b := range n.branches {
		b.node.skipRules(r, path, u, depth+1)
	}
}

// celPartial is the state of a pass of rules over documents holding
// Unknown values: their paths in self (unknowns) and oldSelf (oldUnknowns),
// and the rules skipped so far.
type celPartial struct {
	unknowns    unknownSet
	oldUnknowns unknownSet
	skipped     []Skipped
}

func (r *celRun) skip(rule *celRule, path Path, u Path) {
	r.partial.skipped = append(r.partial.skipped, Skipped{Document: r.doc, Path: append(Path(nil), path...), Check: checkCEL, Rule: rule.expression, Unknown: append(Path(nil), u...)})
}

// unknownSelector reports the unknown enum discriminator that decides
// whether a oneOf/anyOf branch applies to v, if any.
func (b *branchNode) unknownSelector(v any, path Path) (Path, bool) {
	m, ok := v.(map[string]any)
	if !ok || b.always {
		return nil, false
	}
	for _, e := range b.enums {
		if _, unk := m[e.key].(Unknown); unk {
			return path.Key(e.key), true
		}
	}
	return nil, false
}

// skippedUnknown handles the partial pass of run at one node: it reports
// true when the node and everything below were skipped (the value or the
// old value is unknown), else it skips the rules of the node whose self or
// oldSelf contains an unknown and returns the rules still to evaluate.
func (r *celRun) skippedUnknown(n *schemaNode, v, old any, path Path) ([]*celRule, bool) {
	_, vu := v.(Unknown)
	_, ou := old.(Unknown)
	if vu || ou {
		n.skipRules(r, path, path, 0)
		return nil, true
	}
	u, found := r.partial.unknowns.under(path)
	if !found && r.mode == celWithOldSelf {
		u, found = r.partial.oldUnknowns.under(path)
	}
	if !found {
		return n.rules, false
	}
	for _, rule := range n.rules {
		if rule.usesOld == (r.mode == celWithOldSelf) {
			r.skip(rule, path, u)
		}
	}
	return nil, false
}

// celPass is one pass of CEL rules over a document that may hold Unknown
// values: the rules of node, the document they point into, the mode, self
// and the old value (hasOld), the document's schema problems (see
// celRun.invalid), the Unknown paths of self (unknowns) and of oldSelf
// (oldUnknowns); rules not run are appended to skipped.
type celPass struct {
	node           *schemaNode
	doc            Document
	mode           celMode
	self, old      any
	hasOld         bool
	schemaProblems []*Problem
	unknowns       unknownSet
	oldUnknowns    unknownSet
	skipped        *[]Skipped
}

// run runs the pass and returns its problems.
func (c celPass) run() []*Problem {
	r, cancel := newCELRun(c.doc, c.mode)
	defer cancel()
	if len(c.unknowns) > 0 || len(c.oldUnknowns) > 0 {
		r.partial = &celPartial{unknowns: c.unknowns, oldUnknowns: c.oldUnknowns}
	}
	for _, p := range c.schemaProblems {
		r.invalid = append(r.invalid, p.Path.String())
	}
	c.node.run(r, c.self, c.old, c.hasOld, make(Path, 0, 16), 0)
	if r.partial != nil && c.skipped != nil {
		*c.skipped = append(*c.skipped, r.partial.skipped...)
	}
	return r.problems
}

// evaluateUnknownSettings fills res for settings that are unknown as a
// whole: nothing can be checked or computed, every check is listed.
func (p *Package) evaluateUnknownSettings(req Request, res *Result) {
	root := unknownSet{Path{}}
	res.Skipped = append(res.Skipped, schemaSkips(p.settings.node, DocSettings, root)...)
	if p.settings.rules != nil {
		celPass{node: p.settings.rules, doc: DocSettings, mode: celWithoutOldSelf, self: Unknown{}, unknowns: root, skipped: &res.Skipped}.run()
	}
	res.Skipped = append(res.Skipped, grantSkips(p.settings.node, root, req.Catalog)...)
	if req.HasPrevious {
		if prev, err := normalize(req.Previous); err == nil {
			if p.settings.rules != nil && !req.VersionChange {
				celPass{node: p.settings.rules, doc: DocSettings, mode: celWithOldSelf, self: Unknown{}, old: prev, hasOld: true, unknowns: root, skipped: &res.Skipped}.run()
			}
			res.Skipped = append(res.Skipped, immutableSkips(p.settings.node, DocSettings, root, prev)...)
			res.Skipped = append(res.Skipped, switchSkips(p.settings.node, DocSettings, root)...)
		}
	}
	if req.HookValues != nil && p.values != nil {
		res.Skipped = append(res.Skipped, schemaSkips(p.values.node, DocHookValues, root)...)
		if p.values.rules != nil {
			celPass{node: p.values.rules, doc: DocHookValues, mode: celWithoutOldSelf, self: Unknown{}, unknowns: root, skipped: &res.Skipped}.run()
		}
	}
	sortSkipped(&res.Skipped)
}

// sortSkipped sorts by document, path, check, rule and unknown path and
// drops duplicates of the same check (keeping the first unknown path).
func sortSkipped(s *[]Skipped) {
	list := *s
	if len(list) == 0 {
		return
	}
	slices.SortStableFunc(list, func(a, b Skipped) int {
		return cmp.Or(cmp.Compare(a.Document, b.Document), cmp.Compare(a.Path.String(), b.Path.String()),
			cmp.Compare(a.Check, b.Check), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Unknown.String(), b.Unknown.String()))
	})
	out := list[:1]
	for _, x := range list[1:] {
		last := out[len(out)-1]
		if x.Document == last.Document && x.Path.String() == last.Path.String() && x.Check == last.Check && x.Rule == last.Rule {
			continue
		}
		out = append(out, x)
	}
	*s = out
}
