package engine

// The walkers run over a schemaNode; the unit tests describe schemas as raw
// trees. These adapters keep the tests' calls on raw trees: each builds the
// tree's node and runs the walker on it.

// nodeOf builds the schemaNode of a raw schema tree written by a test.
func nodeOf(tree map[string]any) *schemaNode {
	if tree == nil {
		return nil
	}
	n, err := buildSchemaNode("test", tree)
	if err != nil {
		panic(err)
	}
	return n
}

// compileRules builds the node of a raw tree for its CEL rules: nil when the
// tree has none.
func compileRules(file string, tree map[string]any) (*schemaNode, error) {
	n, err := buildSchemaNode(file, tree)
	if err != nil || !n.hasRules {
		return nil, err
	}
	return n, nil
}

// checkImmutable compares prev with cur as DP's webhook does: both get
// the schema defaults, unset grant paths leave the old side.
func checkImmutable(s map[string]any, prev, cur map[string]any, out *[]*Problem) {
	n := nodeOf(s)
	old, now := immutableSides(n, prev, cur)
	(&immutableWalk{out: out}).walk(n, old, now, nil)
}

func effectiveWithDefaults(schema map[string]any, doc map[string]any) map[string]any {
	return applyDefaults(nodeOf(schema), doc)
}

func buildValues(valuesTree map[string]any, effective map[string]any, hook map[string]any) map[string]any {
	return assembleValues(nodeOf(valuesTree), effective, hook)
}

func applyGrants(s map[string]any, eff, raw map[string]any, cat Catalog, problems, warnings *[]*Problem) {
	if warnings == nil {
		warnings = new([]*Problem)
	}
	(&grantRun{cat: cat, problems: problems, warnings: warnings}).apply(nodeOf(s), eff, raw)
}

func detectSwitches(s map[string]any, n, o any, path Path, _ int, out *[]Switch) {
	(&switchWalk{out: out}).walk(nodeOf(s), n, o, path)
}

func collectFields(s map[string]any, keys func(map[string]any) []string, path Path, _ int, out *[]Field) {
	(&fieldsWalk{keys: keys, out: out}).walk(nodeOf(s), path)
}
