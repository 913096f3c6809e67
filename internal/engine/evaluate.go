package engine

// ruleNode holds the compiled CEL programs of one schema level and its children.
type ruleNode struct{}

// compileRules compiles every x-deckhouse-validations rule of a prepared tree.
func compileRules(file string, tree map[string]any) (*ruleNode, error) { panic("not implemented") }

// Evaluate runs DP's whole pipeline on one request.
func (p *Package) Evaluate(req Request) *Result { panic("not implemented") }

// Fields lists the form metadata of every settings field, depth first in schema order.
func (p *Package) Fields() []Field { panic("not implemented") }
