package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
)

// This file compiles x-deckhouse-validations: the CEL environment, the
// cost limits, and the rules of each schema level.

// CEL limits. DP itself sets none; the engine bounds every expression the way
// kube-apiserver does, so a runaway rule is reported, never a hang.
const (
	// celPerRuleCostLimit is the runtime cost one evaluation of one rule may
	// spend (kube-apiserver's per-expression limit, PerCallLimit).
	celPerRuleCostLimit uint64 = 1_000_000
	// celEvaluationCostBudget is the cost all rules of one Evaluate may spend
	// together (kube-apiserver's RuntimeCELCostBudget for one object).
	celEvaluationCostBudget uint64 = 10_000_000
	// celEvaluationTimeout bounds the wall time of all rules of one Evaluate;
	// the interpreter checks it every celInterruptCheckFrequency iterations of
	// a comprehension.
	celEvaluationTimeout       = 5 * time.Second
	celInterruptCheckFrequency = 100
)

// celRule is one compiled x-deckhouse-validations item.
type celRule struct {
	expression string
	message    string
	schemaPath string // e.g. /properties/storage/x-deckhouse-validations/0
	usesOld    bool   // the checked expression references oldSelf
	program    cel.Program
}

// ruleNode holds the compiled CEL programs of one schema level and the nodes
// of its children; subtrees without rules are pruned (nil).
type ruleNode struct {
	rules      []*celRule
	props      map[string]*ruleNode
	items      *ruleNode   // items as one schema
	tuple      []*ruleNode // items as a list of schemas
	additional *ruleNode   // additionalProperties schema
	patterns   []patternNode
	branches   []branchNode
}

type patternNode struct {
	pattern string
	node    *ruleNode
}

// branchNode is the rules of one combinator branch. allOf branches always
// apply; a oneOf/anyOf branch applies to a value it selects (see selects).
type branchNode struct {
	always   bool
	required []string
	enums    map[string][]any // property -> enum of the branch
	node     *ruleNode
}

// celEnv is the environment every rule compiles in: self and oldSelf as dyn,
// cross-type numeric comparisons (numbers are doubles, literals often ints),
// and the extension libraries kube-apiserver offers that add no per-call
// cost tracking: strings (v2), math, encoders and optional types. The lists
// and sets libraries are left out: their cost trackers roughly double the
// cost of every evaluation, and DP's documentation does not promise them.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("self", cel.DynType),
		cel.Variable("oldSelf", cel.DynType),
		cel.CrossTypeNumericComparisons(true),
		cel.DefaultUTCTimeZone(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Math(),
		ext.Encoders(),
	)
})

// compileRules compiles every x-deckhouse-validations rule of a prepared tree
// into a ruleNode mirroring it. It returns (nil, nil) when the tree has no
// rules, and a *SchemaError naming the file, the rule's schema path and the
// expression for the first rule that does not compile.
func compileRules(file string, tree map[string]any) (*ruleNode, error) {
	env, err := celEnv()
	if err != nil {
		return nil, &SchemaError{File: file, Message: "creating the CEL environment: " + err.Error()}
	}
	c := &ruleCompiler{file: file, env: env}
	return c.node(tree, "", 0)
}

type ruleCompiler struct {
	file string
	env  *cel.Env
}

func (c *ruleCompiler) errorf(schemaPath, format string, args ...any) error {
	return &SchemaError{File: c.file, SchemaPath: schemaPath, Message: fmt.Sprintf(format, args...)}
}

func (c *ruleCompiler) node(s map[string]any, sp string, depth int) (*ruleNode, error) {
	if s == nil {
		return nil, nil
	}
	if depth > maxValueDepth {
		return nil, c.errorf(sp, "schema is nested deeper than %d levels", maxValueDepth)
	}
	n := &ruleNode{}
	empty := true
	if raw, ok := s["x-deckhouse-validations"]; ok {
		rules, err := c.rules(raw, sp+"/x-deckhouse-validations")
		if err != nil {
			return nil, err
		}
		n.rules = rules
		empty = empty && len(rules) == 0
	}
	if props := schemaMap(s["properties"]); props != nil {
		for _, k := range sortedKeys(props) {
			child, err := c.node(schemaMap(props[k]), sp+"/properties/"+escapePointer(k), depth+1)
			if err != nil {
				return nil, err
			}
			if child != nil {
				if n.props == nil {
					n.props = map[string]*ruleNode{}
				}
				n.props[k] = child
				empty = false
			}
		}
	}
	switch it := s["items"].(type) {
	case map[string]any:
		child, err := c.node(it, sp+"/items", depth+1)
		if err != nil {
			return nil, err
		}
		if child != nil {
			n.items, empty = child, false
		}
	case []any:
		for i, e := range it {
			child, err := c.node(schemaMap(e), sp+"/items/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			if child != nil {
				if n.tuple == nil {
					n.tuple = make([]*ruleNode, len(it))
				}
				n.tuple[i], empty = child, false
			}
		}
	}
	if ap := schemaMap(s["additionalProperties"]); ap != nil {
		child, err := c.node(ap, sp+"/additionalProperties", depth+1)
		if err != nil {
			return nil, err
		}
		if child != nil {
			n.additional, empty = child, false
		}
	}
	if pp := schemaMap(s["patternProperties"]); pp != nil {
		for _, p := range sortedKeys(pp) {
			child, err := c.node(schemaMap(pp[p]), sp+"/patternProperties/"+escapePointer(p), depth+1)
			if err != nil {
				return nil, err
			}
			if child != nil {
				n.patterns, empty = append(n.patterns, patternNode{pattern: p, node: child}), false
			}
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[kw].([]any)
		for i, b := range list {
			bs := schemaMap(b)
			child, err := c.node(bs, sp+"/"+kw+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			if child == nil {
				continue
			}
			bn := branchNode{always: kw == "allOf", node: child}
			if !bn.always {
				bn.required, bn.enums = branchSelector(bs)
			}
			n.branches, empty = append(n.branches, bn), false
		}
	}
	if empty {
		return nil, nil
	}
	return n, nil
}

// branchSelector extracts what a oneOf/anyOf branch demands of an object:
// its required keys and the enums of its properties.
func branchSelector(bs map[string]any) ([]string, map[string][]any) {
	var req []string
	if r, ok := bs["required"].([]any); ok {
		for _, e := range r {
			if s, ok := e.(string); ok {
				req = append(req, s)
			}
		}
	}
	var enums map[string][]any
	if props := schemaMap(bs["properties"]); props != nil {
		for k, p := range props {
			if e, ok := schemaMap(p)["enum"].([]any); ok {
				if enums == nil {
					enums = map[string][]any{}
				}
				enums[k] = e
			}
		}
	}
	return req, enums
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
	for k, enum := range b.enums {
		val, has := m[k]
		if !has {
			continue
		}
		found := false
		for _, e := range enum {
			if en, err := normalize(e); err == nil && valuesEqual(celView(en), val) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (c *ruleCompiler) rules(raw any, sp string) ([]*celRule, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, c.errorf(sp, "x-deckhouse-validations must be a list of {expression, message}, got %s", jsonTypeName(raw))
	}
	out := make([]*celRule, 0, len(list))
	for i, item := range list {
		isp := sp + "/" + strconv.Itoa(i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, c.errorf(isp, "a validation rule must be an object with expression and message, got %s", jsonTypeName(item))
		}
		expr, _ := m["expression"].(string)
		msg, _ := m["message"].(string)
		if strings.TrimSpace(expr) == "" {
			if _, k8s := m["rule"]; k8s {
				return nil, c.errorf(isp, "a validation rule needs a non-empty expression (the Kubernetes key \"rule\" is not used by DP)")
			}
			return nil, c.errorf(isp, "a validation rule needs a non-empty string expression")
		}
		if strings.TrimSpace(msg) == "" {
			return nil, c.errorf(isp, "validation rule %q needs a non-empty string message", expr)
		}
		ast, iss := c.env.Compile(expr)
		if iss != nil && iss.Err() != nil {
			return nil, c.errorf(isp, "CEL expression %q does not compile: %s", expr, iss.Err().Error())
		}
		if t := ast.OutputType(); t != nil && !t.IsExactType(types.BoolType) && !t.IsExactType(types.DynType) {
			return nil, c.errorf(isp, "CEL expression %q must return a bool, it returns %s", expr, t.String())
		}
		prg, err := c.env.Program(ast,
			cel.CostLimit(celPerRuleCostLimit),
			cel.InterruptCheckFrequency(celInterruptCheckFrequency),
		)
		if err != nil {
			return nil, c.errorf(isp, "CEL expression %q: %s", expr, err.Error())
		}
		out = append(out, &celRule{
			expression: expr,
			message:    msg,
			schemaPath: isp,
			usesOld:    referencesOldSelf(ast),
			program:    prg,
		})
	}
	return out, nil
}

// referencesOldSelf reports whether the checked expression refers to the
// variable oldSelf (from the checker's reference map, not the source text).
func referencesOldSelf(ast *cel.Ast) bool {
	for _, r := range ast.NativeRep().ReferenceMap() {
		if r != nil && r.Name == "oldSelf" {
			return true
		}
	}
	return false
}
