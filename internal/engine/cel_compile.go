package engine

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
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

// branchSelector extracts what a oneOf/anyOf branch demands of an object:
// its required keys and the enums of its properties, by property name, each
// enum as CEL views (an enum value outside the JSON data model is left
// out: it matches nothing).
func branchSelector(bs map[string]any) ([]string, []branchEnum) {
	r, _ := bs["required"].([]any)
	req := stringsIn(r)
	var enums []branchEnum
	if props := schemaMap(bs["properties"]); props != nil {
		for _, k := range sortedKeys(props) {
			e, ok := schemaMap(props[k])["enum"].([]any)
			if !ok {
				continue
			}
			be := branchEnum{key: k}
			for _, v := range e {
				if nv, err := normalize(v); err == nil {
					be.values = append(be.values, celView(nv))
				}
			}
			enums = append(enums, be)
		}
	}
	return req, enums
}

func (c *nodeBuilder) rules(raw any, sp string) ([]*celRule, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, c.errorf(sp, extValidations+" must be a list of {expression, message}, got %s", jsonvalue.TypeName(raw))
	}
	out := make([]*celRule, 0, len(list))
	for i, item := range list {
		isp := sp + "/" + strconv.Itoa(i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, c.errorf(isp, "a validation rule must be an object with expression and message, got %s", jsonvalue.TypeName(item))
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
