package engine

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// validateNormalized checks nv, already in the engine's data model
// (normalize's output, as Evaluate holds it), against the compiled schema,
// without CEL, and returns every problem, sorted.
//
// Problems point at the offending value: for required, the path of the
// missing field; for an undeclared field, the path of that field. A null
// value is checked only against type/nullable and enum (and never matches an
// enum). Where the failing field's schema node carries
// x-deckhouse-ui-validation-message (a string), that text replaces the
// message. A failed oneOf/anyOf is reported as the errors of the one branch
// that applies (the only branch that does not fail on an enum or type,
// typically an enum-discriminated branch), or else as one summary problem at
// the object naming why each branch fails.
func (d *schemaDoc) validateNormalized(doc Document, nv any) []*Problem {
	if d == nil || d.compiled == nil {
		return nil
	}
	err := d.compiled.Validate(nv)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []*Problem{{Document: doc, Kind: KindSchema, Rule: "schema", Message: err.Error()}}
	}
	c := &problemCollector{doc: doc, d: d, root: nv}
	c.collect(ve)
	sortProblems(c.out)
	return c.out
}

type problemCollector struct {
	doc      Document
	d        *schemaDoc
	root     any
	out      []*Problem
	seen     map[string]bool
	unknowns unknownSet // where root held Unknown values (null in root); nil when none
}

func asValidationError(err error) (*jsonschema.ValidationError, bool) {
	var ve *jsonschema.ValidationError
	ok := errors.As(err, &ve)
	return ve, ok
}

// dependsOnUnknown reports whether an error's outcome depends on an Unknown
// value: it is at or below one, or it is a keyword that looks at the values
// inside an object or array holding one.
func (c *problemCollector) dependsOnUnknown(e *jsonschema.ValidationError, path Path) bool {
	if _, ok := c.unknowns.covering(path); ok {
		return true
	}
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf, *kind.Not, *kind.Enum, *kind.Const, *kind.UniqueItems, *kind.Contains:
		_, ok := c.unknowns.under(path)
		return ok
	}
	return false
}

func (c *problemCollector) add(p *Problem) {
	key := p.Path.String() + "\x00" + string(p.Kind) + "\x00" + p.Rule + "\x00" + p.Message
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.out = append(c.out, p)
}

func (c *problemCollector) collect(e *jsonschema.ValidationError) {
	for _, p := range c.problems(e) {
		c.add(p)
	}
}

// problems converts one error (sub)tree.
func (c *problemCollector) problems(e *jsonschema.ValidationError) []*Problem {
	path, val, ok := c.instance(e.InstanceLocation)
	if !ok {
		path = nil
	}
	if c.unknowns != nil && c.dependsOnUnknown(e, path) {
		return nil
	}
	if val == nil && ok && len(e.InstanceLocation) >= 0 {
		switch e.ErrorKind.(type) {
		case *kind.Type, *kind.Enum, *kind.Schema, *kind.Group, *kind.Reference, *typeMismatchKind:
		default:
			// A null value is checked only against type/nullable and enum.
			return nil
		}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		var out []*Problem
		for _, cause := range e.Causes {
			out = append(out, c.problems(cause)...)
		}
		return out
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			return []*Problem{c.problem(e, path, KindSchema, "oneOf",
				fmt.Sprintf("matches more than one of the alternatives (oneOf branches %d and %d); exactly one must match", k.Subschemas[0]+1, k.Subschemas[1]+1))}
		}
		return c.branches(e, path, "oneOf")
	case *kind.AnyOf:
		return c.branches(e, path, "anyOf")
	case *kind.Not:
		return []*Problem{c.problem(e, path, KindSchema, "not", "must not match the schema under not")}
	case *kind.Required:
		var out []*Problem
		for _, m := range k.Missing {
			p := c.problem(e, path.Key(m), KindRequired, "required", "required value is missing")
			if msg := c.uiMessageOfProperty(e, m); msg != "" {
				p.Message = msg
			}
			out = append(out, p)
		}
		return out
	case *kind.AdditionalProperties:
		var out []*Problem
		var declared map[string]any
		if n := schemaAtPath(c.d.tree, path); n != nil {
			declared = schemaMap(n["properties"])
		}
		for _, name := range k.Properties {
			out = append(out, &Problem{Document: c.doc, Path: path.Key(name), Kind: KindUndeclared, Rule: "additionalProperties",
				Message: fmt.Sprintf("field %q is not declared in the schema", name), Suggestion: closestName(name, declared)})
		}
		return out
	case *kind.Type:
		return []*Problem{c.problem(e, path, KindType, "type", fmt.Sprintf("must be %s, got %s", strings.Join(k.Want, " or "), k.Got))}
	case *typeMismatchKind:
		return []*Problem{c.problem(e, path, KindType, "type", k.LocalizedString(printer))}
	case *kind.Enum:
		msg := enumMessage(k.Want)
		if val == nil {
			msg += ", got null"
		}
		return []*Problem{c.problem(e, path, KindEnum, "enum", msg)}
	case *kind.Pattern:
		return []*Problem{c.problem(e, path, KindPattern, "pattern", fmt.Sprintf("must match the pattern %q", k.Want))}
	case *kind.FalseSchema:
		return []*Problem{c.problem(e, path, KindUndeclared, "false", "no value is allowed here")}
	}
	rule := "schema"
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		rule = kp[0]
	}
	out := []*Problem{c.problem(e, path, KindSchema, rule, keywordMessage(e.ErrorKind, rule))}
	for _, cause := range e.Causes {
		out = append(out, c.problems(cause)...)
	}
	return out
}

// branches reports a failed oneOf/anyOf.
func (c *problemCollector) branches(e *jsonschema.ValidationError, path Path, rule string) []*Problem {
	var applicable [][]*Problem
	var summaries []string
	for i, cause := range e.Causes {
		ps := c.problems(cause)
		if len(ps) == 0 {
			continue
		}
		if !slices.ContainsFunc(ps, func(p *Problem) bool { return p.Kind == KindEnum || p.Kind == KindType }) {
			applicable = append(applicable, ps)
		}
		summaries = append(summaries, fmt.Sprintf("alternative %d: %s", branchIndex(cause, i)+1, ps[0].Error()))
	}
	if len(applicable) == 1 {
		return applicable[0]
	}
	msg := "does not match any of the allowed alternatives (" + rule + ")"
	if len(summaries) > 0 {
		msg += ": " + strings.Join(summaries, "; ")
	}
	return []*Problem{c.problem(e, path, KindSchema, rule, msg)}
}

// branchIndex finds the branch number of a cause from its schema location.
func branchIndex(cause *jsonschema.ValidationError, fallback int) int {
	frag := fragmentOf(cause.SchemaURL)
	if i := strings.LastIndexByte(frag, '/'); i >= 0 {
		if n, err := strconv.Atoi(frag[i+1:]); err == nil {
			return n
		}
	}
	return fallback
}

func (c *problemCollector) problem(e *jsonschema.ValidationError, path Path, k Kind, rule, msg string) *Problem {
	p := &Problem{Document: c.doc, Path: path, Kind: k, Rule: rule, Message: msg}
	if m := c.uiMessage(e, path); m != "" {
		p.Message = m
	}
	return p
}

// instance maps an instance location to a Path (keys or indexes, decided
// by the shape of the document) and the value there.
func (c *problemCollector) instance(loc []string) (Path, any, bool) {
	var p Path
	cur := c.root
	for _, tok := range loc {
		switch x := cur.(type) {
		case map[string]any:
			p = p.Key(tok)
			cur = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return p, nil, false
			}
			p = p.Index(i)
			cur = x[i]
		default:
			return p, nil, false
		}
	}
	return p, cur, true
}

// uiMessage returns x-deckhouse-ui-validation-message of the schema node that
// failed, or else of the field's own schema node (following properties,
// additionalProperties and items from the root).
func (c *problemCollector) uiMessage(e *jsonschema.ValidationError, path Path) string {
	if n, err := lookupPointer(c.d.tree, fragmentOf(e.SchemaURL)); err == nil {
		if m, ok := n.(map[string]any); ok {
			if s, ok := m[extUIValidationMessage].(string); ok && s != "" {
				return s
			}
		}
	}
	if n := schemaAtPath(c.d.tree, path); n != nil {
		if s, ok := n[extUIValidationMessage].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// uiMessageOfProperty is uiMessage for a missing property of the failing node.
func (c *problemCollector) uiMessageOfProperty(e *jsonschema.ValidationError, name string) string {
	n, err := lookupPointer(c.d.tree, fragmentOf(e.SchemaURL))
	if err != nil {
		return ""
	}
	m, _ := n.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	ps, _ := props[name].(map[string]any)
	s, _ := ps[extUIValidationMessage].(string)
	return s
}

// schemaAtPath follows a value path through a prepared tree: properties,
// then patternProperties-free additionalProperties for keys, items for
// indexes. It returns nil when the path leaves the declared schema.
func schemaAtPath(tree map[string]any, p Path) map[string]any {
	cur := tree
	for _, s := range p {
		if cur == nil {
			return nil
		}
		if s.IsIndex {
			cur, _ = cur["items"].(map[string]any)
			continue
		}
		if props, ok := cur["properties"].(map[string]any); ok {
			if n, ok := props[s.Key].(map[string]any); ok {
				cur = n
				continue
			}
		}
		cur, _ = cur["additionalProperties"].(map[string]any)
	}
	return cur
}

// keywordMessage renders the failure of a schema keyword without the
// instance value: the value may be a secret (sensitive settings), so only the
// schema's side of the comparison is named. The texts of the validator
// library are never used, since most of them print the value.
func keywordMessage(ek jsonschema.ErrorKind, rule string) string {
	switch k := ek.(type) {
	case *kind.Format:
		msg := "must be a valid " + k.Want
		var reason formatReason
		if errors.As(k.Err, &reason) {
			msg += ": " + string(reason)
		}
		return msg
	case *kind.Minimum:
		return "must be at least " + ratString(k.Want)
	case *kind.Maximum:
		return "must be at most " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratString(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want)
	case *kind.MinLength:
		return plural(k.Want, "must be at least %d character long", "must be at least %d characters long")
	case *kind.MaxLength:
		return plural(k.Want, "must be at most %d character long", "must be at most %d characters long")
	case *kind.MinItems:
		return plural(k.Want, "must have at least %d item", "must have at least %d items")
	case *kind.MaxItems:
		return plural(k.Want, "must have at most %d item", "must have at most %d items")
	case *kind.MinProperties:
		return plural(k.Want, "must have at least %d property", "must have at least %d properties")
	case *kind.MaxProperties:
		return plural(k.Want, "must have at most %d property", "must have at most %d properties")
	case *kind.UniqueItems:
		return fmt.Sprintf("items must be unique (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		return plural(k.Count, "the last %d item is not allowed", "the last %d items are not allowed")
	case *kind.Const:
		return enumMessage([]any{k.Want})
	case *kind.Dependency:
		return fmt.Sprintf("requires %s when %q is set", quoteNames(k.Missing), k.Prop)
	case *kind.DependentRequired:
		return fmt.Sprintf("requires %s when %q is set", quoteNames(k.Missing), k.Prop)
	case *kind.PropertyNames:
		return fmt.Sprintf("property name %q is not allowed", k.Property)
	}
	return "does not satisfy the schema keyword " + rule
}

// enumMessage names the allowed values (schema values, never the instance's).
func enumMessage(want []any) string {
	parts := make([]string, 0, len(want))
	for _, w := range want {
		switch x := w.(type) {
		case string:
			parts = append(parts, strconv.Quote(x))
		case map[string]any, []any:
			return "must be one of the values the schema allows"
		default:
			if n, err := normalize(x); err == nil {
				if s, ok := scalarString(n); ok {
					parts = append(parts, s)
					continue
				}
			}
			parts = append(parts, "null")
		}
	}
	if len(parts) == 1 {
		return "must be " + parts[0]
	}
	return "must be one of " + strings.Join(parts, ", ")
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "the schema's limit"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf(one, n)
	}
	return fmt.Sprintf(many, n)
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// closestName returns the key of declared nearest to name by Levenshtein
// distance, when that distance is at most max(2, len(name)/3); ties go to
// the alphabetically first key. "" when no key is that close.
func closestName(name string, declared map[string]any) string {
	limit := max(2, len([]rune(name))/3)
	best, bestDist := "", limit+1
	for k := range declared {
		d := levenshtein(name, k)
		if d < bestDist || (d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	if bestDist > limit {
		return ""
	}
	return best
}

// levenshtein is the edit distance (insertions, deletions, substitutions)
// between a and b, by runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
