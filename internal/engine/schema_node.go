package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
)

// schemaNode is one level of a prepared schema, parsed once when the package
// is compiled, so that the semantic walkers (CEL rules, defaults, grants,
// immutability, switches) follow typed children instead of re-reading the
// untyped tree on every evaluation. Nodes are built for the sub-schemas a
// value can be governed by (properties, patternProperties,
// additionalProperties, items, additionalItems) and for the allOf, anyOf and
// oneOf branches; keywords not lifted here are read from raw. A built tree is
// immutable and shared by every evaluation.
type schemaNode struct {
	raw map[string]any // this level of the prepared tree

	// props holds every declared property; the value is nil for a property
	// whose schema is not an object (it is declared, but governs nothing).
	props     map[string]*schemaNode
	propNames []string      // names of props, sorted
	patterns  []patternNode // patternProperties in sorted pattern order
	// additional is the additionalProperties schema; nil when it is a
	// boolean or absent.
	additional *schemaNode
	// items is items as one schema; with tuple set, items is a list of
	// schemas (an entry nil when not an object) and additionalItems governs
	// the elements past it.
	items           *schemaNode
	tuple           []*schemaNode
	isTuple         bool
	additionalItems *schemaNode
	branches        []branchNode // allOf, anyOf, then oneOf branches that are objects, in order
	// not and deps (the schema-form dependencies, in sorted key order) are
	// followed by the immutability walk only; their rules are not compiled.
	not  *schemaNode
	deps []*schemaNode

	// def is the property's default when it declares one that is not null
	// (`default: null` is no default); defaultProps names, sorted, the
	// properties that declare one.
	def          any
	hasDefault   bool
	defaultProps []string

	// CEL: the compiled x-deckhouse-validations of this level; hasRules is
	// set when this node or a node below it (through properties,
	// patternProperties, additionalProperties, items and branches) has
	// rules, and ruleProps names, sorted, the properties that do.
	rules     []*celRule
	hasRules  bool
	ruleProps []string

	// immutable is x-deckhouse-immutable: true on this level;
	// anyImmutable is set when this node or one below it (through
	// properties, patternProperties, additionalProperties, items, the
	// combinator branches, not and dependencies) is immutable, and height
	// is the longest such path down from this node.
	immutable    bool
	anyImmutable bool
	height       int

	// grantable is x-deckhouse-grantable-resource ("" when unbound);
	// grants, on the root only, lists the bindings reached through
	// properties (see collectGrants).
	grantable string
	grants    []grantPath

	// switches are the oneOf branches carrying
	// x-deckhouse-enum-switch-settings that have a discriminator, in order.
	switches []switchBranch
}

// patternNode is one patternProperties entry. re is nil for a pattern that
// does not compile (the schema compiler reports it): it matches nothing.
// node is nil when the entry's schema is not an object.
type patternNode struct {
	pattern string
	re      *regexp.Regexp
	node    *schemaNode
}

// branchNode is one combinator branch. allOf branches always apply; a
// oneOf/anyOf branch applies to a value it selects (see selects).
type branchNode struct {
	always   bool
	required []string
	enums    []branchEnum // the enums of the branch's properties, by property name
	node     *schemaNode
}

// branchEnum is the enum a branch gives one property, as CEL views.
type branchEnum struct {
	key    string
	values []any
}

// buildSchemaNode parses a prepared tree into its schemaNode and compiles
// its x-deckhouse-validations rules on the way. A rule that does not
// compile is a *SchemaError naming the file, the rule's schema path and the
// expression.
func buildSchemaNode(file string, tree map[string]any) (*schemaNode, error) {
	env, err := celEnv()
	if err != nil {
		return nil, &SchemaError{File: file, Message: "creating the CEL environment: " + err.Error()}
	}
	c := &nodeBuilder{file: file, env: env, rec: &recursion{root: tree, refs: map[string]*schemaNode{}}}
	n, err := c.node(tree, "", 0)
	if err != nil {
		return nil, err
	}
	if n == nil {
		n = &schemaNode{}
	}
	if len(c.rec.refs) > 0 {
		c.rec.settle()
	}
	(&grantCollector{onPath: map[*schemaNode]bool{}, out: &n.grants}).collect(n, nil)
	return n, nil
}

// recursion is the state of recursive $refs while one tree is built: a
// $ref left in place by resolveRefs (see refResolver.recursiveRef) becomes
// an edge to the node of its target, built once, so the node graph has a
// cycle where the schema recurs.
type recursion struct {
	root map[string]any
	refs map[string]*schemaNode // target node by $ref, registered before its children are built
	all  []*schemaNode          // every node built, for settle
}

// settle recomputes, until nothing changes, what each node lifts from its
// children (hasRules, ruleProps, anyImmutable): a node on a cycle was built
// before its own descendants were complete.
func (r *recursion) settle() {
	for changed := true; changed; {
		changed = false
		for _, n := range r.all {
			hasRules, anyImmutable := n.lifted()
			if hasRules != n.hasRules || anyImmutable != n.anyImmutable {
				n.hasRules, n.anyImmutable, changed = hasRules, anyImmutable, true
			}
		}
	}
	for _, n := range r.all {
		n.ruleProps = n.ruleProps[:0]
		for _, k := range n.propNames {
			if n.props[k].ruled() {
				n.ruleProps = append(n.ruleProps, k)
			}
		}
	}
}

// lifted computes hasRules and anyImmutable of n from its own level and its
// children as they are now.
func (n *schemaNode) lifted() (hasRules, anyImmutable bool) {
	hasRules, anyImmutable = len(n.rules) > 0, n.immutable
	visit := func(c *schemaNode, rules bool) {
		if c == nil {
			return
		}
		hasRules = hasRules || (rules && c.hasRules)
		anyImmutable = anyImmutable || c.anyImmutable
	}
	for _, c := range n.props {
		visit(c, true)
	}
	for _, p := range n.patterns {
		visit(p.node, true)
	}
	visit(n.additional, true)
	visit(n.items, true)
	for _, c := range n.tuple {
		visit(c, true)
	}
	for _, b := range n.branches {
		visit(b.node, true)
	}
	visit(n.additionalItems, false)
	visit(n.not, false)
	for _, d := range n.deps {
		visit(d, false)
	}
	return hasRules, anyImmutable
}

// refNode returns the node of the recursive $ref ref found at schema path
// sp, building its target once.
func (c *nodeBuilder) refNode(ref, sp string, depth int) (*schemaNode, error) {
	if n, ok := c.rec.refs[ref]; ok {
		return n, nil
	}
	target, err := lookupPointer(c.rec.root, ref[1:])
	tm, ok := target.(map[string]any)
	if err != nil || !ok {
		return nil, c.errorf(sp, "$ref %q does not resolve inside the schema", ref)
	}
	n := &schemaNode{raw: tm}
	c.rec.refs[ref] = n
	if err := c.fill(n, tm, sp, depth); err != nil {
		return nil, err
	}
	return n, nil
}

// nodeBuilder builds the nodes of one schema file, compiling their rules in
// the file's CEL environment.
type nodeBuilder struct {
	file string
	env  *cel.Env
	// noRules builds nodes without compiling their rules: below
	// additionalItems, whose rules the engine neither compiles nor runs.
	noRules bool
	rec     *recursion
}

func (c *nodeBuilder) errorf(schemaPath, format string, args ...any) error {
	return &SchemaError{File: c.file, SchemaPath: schemaPath, Message: fmt.Sprintf(format, args...)}
}

// node builds the node of schema s found at schema path sp; nil for a nil s.
func (c *nodeBuilder) node(s map[string]any, sp string, depth int) (*schemaNode, error) {
	if s == nil {
		return nil, nil
	}
	if depth > maxValueDepth {
		return nil, c.errorf(sp, "schema is nested deeper than %d levels", maxValueDepth)
	}
	if ref, ok := s["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		return c.refNode(ref, sp, depth)
	}
	n := &schemaNode{raw: s}
	if err := c.fill(n, s, sp, depth); err != nil {
		return nil, err
	}
	return n, nil
}

// fill builds the children of node n for schema s at schema path sp.
func (c *nodeBuilder) fill(n *schemaNode, s map[string]any, sp string, depth int) error {
	c.rec.all = append(c.rec.all, n)
	if raw, ok := s[extValidations]; ok && !c.noRules {
		rules, err := c.rules(raw, sp+"/"+extValidations)
		if err != nil {
			return err
		}
		if len(rules) > 0 {
			n.rules, n.hasRules = rules, true
		}
	}
	if props := schemaMap(s["properties"]); props != nil {
		n.props = make(map[string]*schemaNode, len(props))
		n.propNames = sortedKeys(props)
		for _, k := range n.propNames {
			child, err := c.node(schemaMap(props[k]), sp+"/properties/"+escapePointer(k), depth+1)
			if err != nil {
				return err
			}
			n.props[k] = child
			if child != nil && child.hasDefault {
				n.defaultProps = append(n.defaultProps, k)
			}
			if child.ruled() {
				n.ruleProps = append(n.ruleProps, k)
				n.hasRules = true
			}
		}
	}
	if err := c.fillItems(n, s, sp, depth); err != nil {
		return err
	}
	if ap := schemaMap(s["additionalProperties"]); ap != nil {
		child, err := c.node(ap, sp+"/additionalProperties", depth+1)
		if err != nil {
			return err
		}
		n.additional = child
		n.hasRules = n.hasRules || child.ruled()
	}
	if pp := schemaMap(s["patternProperties"]); len(pp) > 0 {
		for _, p := range sortedKeys(pp) {
			child, err := c.node(schemaMap(pp[p]), sp+"/patternProperties/"+escapePointer(p), depth+1)
			if err != nil {
				return err
			}
			n.patterns = append(n.patterns, patternNode{pattern: p, re: compilePattern(p), node: child})
			n.hasRules = n.hasRules || child.ruled()
		}
	}
	if err := c.fillBranches(n, s, sp, depth); err != nil {
		return err
	}
	if err := c.markOnly(n, s, sp, depth); err != nil {
		return err
	}
	if d, ok := s["default"]; ok && d != nil {
		n.def, n.hasDefault = d, true
	}
	n.liftImmutable()
	n.grantable, _ = s[extGrantable].(string)
	n.switches = switchBranches(s)
	return nil
}

// fillItems builds the items (one schema or a tuple, then additionalItems)
// of node n.
func (c *nodeBuilder) fillItems(n *schemaNode, s map[string]any, sp string, depth int) error {
	switch it := s["items"].(type) {
	case map[string]any:
		child, err := c.node(it, sp+"/items", depth+1)
		if err != nil {
			return err
		}
		n.items = child
		n.hasRules = n.hasRules || child.ruled()
	case []any:
		n.isTuple = true
		n.tuple = make([]*schemaNode, len(it))
		for i, e := range it {
			child, err := c.node(schemaMap(e), sp+"/items/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return err
			}
			n.tuple[i] = child
			n.hasRules = n.hasRules || child.ruled()
		}
		// additionalItems only governs elements past a tuple. Its rules
		// are neither compiled nor run: the CEL passes follow items and
		// tuple entries only.
		if ai := schemaMap(s["additionalItems"]); ai != nil {
			nr := *c
			nr.noRules = true
			child, err := nr.node(ai, sp+"/additionalItems", depth+1)
			if err != nil {
				return err
			}
			n.additionalItems = child
		}
	}
	return nil
}

// fillBranches builds the allOf, anyOf and oneOf branches of node n.
func (c *nodeBuilder) fillBranches(n *schemaNode, s map[string]any, sp string, depth int) error {
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[kw].([]any)
		for i, b := range list {
			bs := schemaMap(b)
			if bs == nil {
				continue
			}
			child, err := c.node(bs, sp+"/"+kw+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return err
			}
			bn := branchNode{always: kw == "allOf", node: child}
			if !bn.always {
				bn.required, bn.enums = branchSelector(bs)
			}
			n.branches = append(n.branches, bn)
			n.hasRules = n.hasRules || child.ruled()
		}
	}
	return nil
}

// markOnly builds the not and dependencies sub-schemas of s, which only
// the immutability walk follows (their rules are neither compiled nor run).
func (c *nodeBuilder) markOnly(n *schemaNode, s map[string]any, sp string, depth int) error {
	nr := *c
	nr.noRules = true
	if ns := schemaMap(s["not"]); ns != nil {
		child, err := nr.node(ns, sp+"/not", depth+1)
		if err != nil {
			return err
		}
		n.not = child
	}
	deps := schemaMap(s["dependencies"])
	for _, k := range sortedKeys(deps) {
		ds := schemaMap(deps[k])
		if ds == nil {
			continue // the property-list form holds no schema
		}
		child, err := nr.node(ds, sp+"/dependencies/"+escapePointer(k), depth+1)
		if err != nil {
			return err
		}
		n.deps = append(n.deps, child)
	}
	return nil
}

// liftImmutable sets immutable, anyImmutable and height from the extension
// and the children already built.
func (n *schemaNode) liftImmutable() {
	n.immutable, _ = n.raw[extImmutable].(bool)
	n.anyImmutable = n.immutable
	down := func(c *schemaNode) {
		if c == nil {
			return
		}
		n.anyImmutable = n.anyImmutable || c.anyImmutable
		n.height = max(n.height, c.height+1)
	}
	for _, c := range n.props {
		down(c)
	}
	for _, p := range n.patterns {
		down(p.node)
	}
	down(n.additional)
	down(n.items)
	for _, c := range n.tuple {
		down(c)
	}
	down(n.additionalItems)
	for _, b := range n.branches {
		down(b.node)
	}
	down(n.not)
	for _, d := range n.deps {
		down(d)
	}
}

// maxImmutableSearch bounds how far below a node mayHoldImmutable looks;
// a deeper schema is assumed to hold an immutable field.
const maxImmutableSearch = 64

// mayHoldImmutable reports whether n or anything below it is marked
// immutable, so the walk skips subtrees that cannot hold a frozen value.
// Schemas more than maxImmutableSearch levels deep count as holding one.
func (n *schemaNode) mayHoldImmutable() bool {
	return n != nil && (n.anyImmutable || n.height > maxImmutableSearch)
}

// ruled reports whether n or a node below it has CEL rules.
func (n *schemaNode) ruled() bool { return n != nil && n.hasRules }

// property returns the node of the declared property k, or nil.
func (n *schemaNode) property(k string) *schemaNode {
	if n == nil {
		return nil
	}
	return n.props[k]
}

// entry returns the node that governs key k of an object value: the
// declared property, else the first matching patternProperties schema (in
// sorted pattern order), else the additionalProperties schema. nil when
// none (an undeclared key, additionalProperties: true/false, or a declared
// property or a matching pattern whose schema is not an object).
func (n *schemaNode) entry(k string) *schemaNode {
	if n == nil {
		return nil
	}
	c, declared := n.props[k]
	if c != nil {
		return c
	}
	for _, p := range n.patterns {
		if p.re != nil && p.re.MatchString(k) {
			return p.node
		}
	}
	if declared {
		return nil
	}
	return n.additional
}

// element returns the node of element i of an array value: items as one
// schema, or the i-th schema of a tuple-form items list (then
// additionalItems).
func (n *schemaNode) element(i int) *schemaNode {
	if n == nil {
		return nil
	}
	if n.isTuple {
		if i < len(n.tuple) {
			return n.tuple[i]
		}
		return n.additionalItems
	}
	return n.items
}

// schemaMap returns v as a schema node, or nil.
func schemaMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// compilePattern compiles a patternProperties key when the node is built
// (once per loaded package). An invalid pattern (the schema compiler reports
// it) matches nothing here.
func compilePattern(p string) *regexp.Regexp {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	return re
}
