package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// This file runs compiled CEL rules over a document: the passes (with and
// without oldSelf), the cost budget, and the rendering of failures.

// celMode selects which rules one pass runs.
type celMode int

const (
	celWithoutOldSelf celMode = iota // every rule that does not reference oldSelf
	celWithOldSelf                   // only rules that reference oldSelf, where an old value exists
)

// celRun is the state of one pass of rules over one document.
type celRun struct {
	ctx      context.Context
	doc      Document
	mode     celMode
	budget   uint64
	problems []*Problem
	// invalid lists the paths (as strings) where schema validation already
	// failed: a rule that cannot be evaluated there (for example a string
	// where the schema wants an object) adds no second problem.
	invalid []string
	// partial is set when the self or oldSelf documents hold Unknown
	// values: rules that depend on them are skipped (see unknown.go).
	partial *celPartial
	// skipping holds the nodes on the current path of skipRules.
	skipping map[*schemaNode]bool
}

// coversInvalid reports whether schema validation failed at path or below it.
func (r *celRun) coversInvalid(path Path) bool {
	if len(r.invalid) == 0 {
		return false
	}
	ps := path.String()
	return slices.ContainsFunc(r.invalid, func(s string) bool {
		return ps == "" || s == ps || strings.HasPrefix(s, ps+".") || strings.HasPrefix(s, ps+"[")
	})
}

// activation binds self and oldSelf without allocating a map per evaluation.
type activation struct {
	self, old any
	hasOld    bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "oldSelf":
		if a.hasOld {
			return a.old, true
		}
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// run evaluates the rules of n and of the nodes below it that have rules on
// v (and old, in the oldSelf pass). v and old are CEL views (numbers as
// float64). path is used as a stack: children append to it in place, so a
// problem copies it.
//
// A key present with null runs the rules of its node with self bound to CEL
// null, as DP's ValidateTransition does (it visits every key present): a
// comparison such as self == 'a' is false there, a call such as self.size()
// is an evaluation error, and both reject. An old value of null is no old
// value: the rules that reference oldSelf are skipped there (hasOld false).
func (n *schemaNode) run(r *celRun, v any, old any, hasOld bool, path Path, depth int) {
	if n == nil || depth > maxValueDepth {
		return
	}
	if r.mode == celWithOldSelf && !hasOld {
		return
	}
	rules := n.rules
	if r.partial != nil {
		var done bool
		if rules, done = r.skippedUnknown(n, v, old, path); done {
			return
		}
	}
	for _, rule := range rules {
		if rule.usesOld != (r.mode == celWithOldSelf) {
			continue
		}
		r.eval(rule, v, old, hasOld, path)
	}
	for i := range n.branches {
		b := &n.branches[i]
		if !b.node.ruled() {
			continue
		}
		if r.partial != nil {
			if u, unk := b.unknownSelector(v, path); unk {
				b.node.skipRules(r, path, u, depth+1)
				continue
			}
		}
		if b.selects(v) {
			b.node.run(r, v, old, hasOld, path, depth+1)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		om, _ := old.(map[string]any)
		for _, k := range n.ruleProps {
			if cv, has := x[k]; has {
				ov, oh := om[k]
				n.props[k].run(r, cv, ov, oh && ov != nil, append(path, Segment{Key: k}), depth+1)
			}
		}
		if n.additional.ruled() || n.patternRules() {
			for _, k := range sortedKeys(x) {
				child := n.ruleEntry(k)
				if child == nil {
					continue
				}
				ov, oh := om[k]
				child.run(r, x[k], ov, oh && ov != nil, append(path, Segment{Key: k}), depth+1)
			}
		}
	case []any:
		ol, _ := old.([]any)
		for i, e := range x {
			child := n.ruleElement(i)
			if child == nil {
				continue
			}
			var ov any
			oh := i < len(ol)
			if oh {
				ov = ol[i]
			}
			child.run(r, e, ov, oh && ov != nil, append(path, Segment{Index: i, IsIndex: true}), depth+1)
		}
	}
}

// patternRules reports whether a patternProperties schema of n has rules.
func (n *schemaNode) patternRules() bool {
	return slices.ContainsFunc(n.patterns, func(p patternNode) bool { return p.node.ruled() })
}

// ruleEntry returns the node whose rules apply to key k of an object value
// beyond the declared properties (whose rules run through ruleProps): the
// node that governs k as entry finds it (the first matching pattern, else
// additionalProperties) when it has rules. A declared property never gets
// the rules of a pattern or of additionalProperties.
func (n *schemaNode) ruleEntry(k string) *schemaNode {
	if _, declared := n.props[k]; declared {
		return nil
	}
	if c := n.entry(k); c.ruled() {
		return c
	}
	return nil
}

// ruleElement returns the node whose rules apply to element i of an array:
// items, or the i-th schema of a tuple (additionalItems has no rules run),
// when it has rules.
func (n *schemaNode) ruleElement(i int) *schemaNode {
	var c *schemaNode
	if n.isTuple {
		if i < len(n.tuple) {
			c = n.tuple[i]
		}
	} else {
		c = n.items
	}
	if c.ruled() {
		return c
	}
	return nil
}

// selects reports whether a oneOf/anyOf branch applies to v: v is an object
// holding every key the branch requires, and every present key constrained
// by an enum in the branch holds one of its values.
func (b *branchNode) selects(v any) bool {
	if b.always {
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return len(b.required) == 0 && len(b.enums) == 0
	}
	for _, k := range b.required {
		if _, has := m[k]; !has {
			return false
		}
	}
	for _, e := range b.enums {
		val, has := m[e.key]
		if !has {
			continue
		}
		if !slices.ContainsFunc(e.values, func(ev any) bool { return jsonvalue.Equal(ev, val) }) {
			return false
		}
	}
	return true
}

func (r *celRun) eval(rule *celRule, self, old any, hasOld bool, path Path) {
	fail := func(msg string) {
		r.problems = append(r.problems, &Problem{Document: r.doc, Path: append(Path(nil), path...), Kind: KindCEL, Message: msg, Rule: rule.expression})
	}
	if r.budget == 0 {
		fail(fmt.Sprintf("%s (rule %q was not evaluated: the CEL cost budget of %d for one evaluation is exhausted)", rule.message, rule.expression, celEvaluationCostBudget))
		return
	}
	act := &activation{self: self, old: old, hasOld: hasOld}
	out, det, err := rule.program.ContextEval(r.ctx, act)
	if det != nil && det.ActualCost() != nil {
		cost := *det.ActualCost()
		if cost >= r.budget {
			r.budget = 0
		} else {
			r.budget -= cost
		}
	}
	if err != nil {
		if strings.Contains(err.Error(), "no such key:") {
			return // a missing key passes, as in DP: authors guard with has()
		}
		if r.coversInvalid(path) {
			return // the schema problem there already explains it
		}
		fail(fmt.Sprintf("%s (rule %q could not be evaluated: %s)", rule.message, rule.expression, celErrorText(err)))
		return
	}
	if types.IsError(out) {
		if r.coversInvalid(path) {
			return
		}
		fail(fmt.Sprintf("%s (rule %q could not be evaluated: %s)", rule.message, rule.expression, celErrorText(celValueError(out))))
		return
	}
	b, ok := out.(types.Bool)
	if !ok {
		fail(fmt.Sprintf("%s (rule %q returned %s, not a bool)", rule.message, rule.expression, typeNameOf(out)))
		return
	}
	if !bool(b) {
		fail(rule.message)
	}
}

// celErrorText renders a CEL evaluation error as one of a few fixed texts.
// cel-go's own texts can embed the values the rule was evaluated on (a
// string that failed a conversion, a duration that did not parse), and
// values may be secrets, so they are never shown.
func celErrorText(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "cost limit exceeded"):
		return fmt.Sprintf("its runtime cost exceeds the limit of %d", celPerRuleCostLimit)
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(msg, "interrupted"):
		return fmt.Sprintf("CEL evaluation exceeded %s", celEvaluationTimeout)
	case strings.Contains(msg, "no matching overload"), strings.Contains(msg, "no such overload"):
		return "no function or operator accepts the types of its arguments"
	case strings.Contains(msg, "division by zero"):
		return "division by zero"
	case strings.Contains(msg, "modulus by zero"):
		return "modulus by zero"
	case strings.Contains(msg, "overflow"):
		return "numeric overflow"
	case strings.Contains(msg, "out of range"):
		return "an index or a value is out of range"
	case strings.Contains(msg, "no such attribute"), strings.Contains(msg, "no such field"):
		return "a field it reads does not exist"
	}
	return "a value could not be converted or is not valid for the operation"
}

// celValueError returns the error an error-valued CEL result holds.
func celValueError(v ref.Val) error {
	if err, ok := v.Value().(error); ok {
		return err
	}
	return errors.New("evaluation error")
}

func typeNameOf(v ref.Val) string {
	if v == nil {
		return "nothing"
	}
	return v.Type().TypeName()
}

// newCELRun prepares a pass of rules; cancel must be called when it is done.
func newCELRun(doc Document, mode celMode) (*celRun, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), celEvaluationTimeout)
	return &celRun{ctx: ctx, doc: doc, mode: mode, budget: celEvaluationCostBudget}, cancel
}
