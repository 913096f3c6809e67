package provider

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// troubleshootingGuide is the template of the troubleshooting guide, the
// page that lists every diagnostic the provider emits.
const troubleshootingGuide = "../../templates/guides/troubleshooting.md.tmpl"

// summarySources are the packages whose code builds summaries: the provider's
// own, and those whose functions, constants and fields the provider's
// summaries are made of.
var summarySources = []string{".", "../engine", "../dpclient", "../dpapi"}

// TestTroubleshootingGuide_ListsEverySummary collects every diagnostic summary
// the code of internal/provider can emit (the summary argument of AddError,
// AddWarning, AddAttributeError, AddAttributeWarning, diag.New…Diagnostic and
// of a tfprotov6.Diagnostic literal, followed through constants, variables,
// parameters, struct fields, string-returning functions and fmt.Sprintf) and
// fails naming each one the troubleshooting guide does not list. A part of a
// summary the code computes (a path, a name) matches any text, and so does a
// <placeholder> of the guide. A summary passed on from another diagnostic
// (d.Summary()) is that diagnostic's.
func TestTroubleshootingGuide_ListsEverySummary(t *testing.T) {
	idx := loadSummaryIndex(t)
	emitted := idx.emittedSummaries()
	if len(emitted) < 50 {
		t.Fatalf("found only %d summaries in internal/provider: the collector no longer sees the diagnostics", len(emitted))
	}
	guide, err := os.ReadFile(troubleshootingGuide)
	if err != nil {
		t.Fatal(err)
	}
	entries := guideEntries(string(guide))

	var missing, unreadable []string
	for _, s := range emitted {
		if !hasLetter(s.text) {
			unreadable = append(unreadable, s.where)
			continue
		}
		if !coveredBy(s.text, entries) {
			missing = append(missing, fmt.Sprintf("%q (%s)", printable(s.text), s.where))
		}
	}
	sort.Strings(unreadable)
	sort.Strings(missing)
	for _, w := range slices.Compact(unreadable) {
		t.Errorf("%s: the summary is not text the test can read: build it from literals and constants", w)
	}
	for _, m := range slices.Compact(missing) {
		t.Errorf("summary %s is missing from %s", m, troubleshootingGuide)
	}
}

// TestTroubleshootingGuide_SummaryMatching pins the matching rules the test
// above relies on.
func TestTroubleshootingGuide_SummaryMatching(t *testing.T) {
	entries := guideEntries("* **Cannot read Application `<ns>/<name>`**: x\n" +
		"* **Settings switch settings.`<path>`: A → B**\n" +
		"`Invalid settings.<path>: <what>`\n")
	for _, tc := range []struct {
		summary string
		covered bool
	}{
		{"Cannot read Application \x00/\x00", true},
		{"Cannot read \x00", true},
		{"Cannot read the Application", false},
		{"Settings switch \x00: \x00 → \x00", true},
		{"Invalid settings.replicas: wrong type", true},
		{"Invalid \x00: \x00", true},
		{"Invalid import ID", false},
	} {
		if got := coveredBy(tc.summary, entries); got != tc.covered {
			t.Errorf("coveredBy(%q) = %v, want %v", printable(tc.summary), got, tc.covered)
		}
	}
}

// hole stands for a part of a summary only known at run time; passOn marks a
// summary taken from another diagnostic.
const (
	hole   = "\x00"
	passOn = "\x01"
	// maxCandidates bounds the texts one expression may stand for; past it
	// the expression is a hole.
	maxCandidates = 64
)

type emittedSummary struct {
	text  string // with holes
	where string // file:line of the call
}

// summaryIndex is the parsed source, with declarations looked up by name.
type summaryIndex struct {
	fset     *token.FileSet
	emitters []*ast.File                // internal/provider and below
	funcs    map[string][]*ast.FuncDecl // functions and methods by name
	globals  map[string][]ast.Expr      // package-level constants and variables by name
	fields   map[string][]ast.Expr      // values given to a struct field of that name
	files    map[string]*fileScope      // by file name
	calls    map[string][]*ast.CallExpr // calls by the callee's name
	params   map[*ast.Field]paramOwner  // the function a parameter belongs to
	visiting map[ast.Expr]bool          // cycle guard
	memo     map[ast.Expr][]string      // evaluated expressions
}

// paramOwner names the function a parameter belongs to, as calls name it, and
// the parameter's position.
type paramOwner struct {
	callee string
	index  int
}

func loadSummaryIndex(t *testing.T) *summaryIndex {
	t.Helper()
	idx := &summaryIndex{
		fset:     token.NewFileSet(),
		funcs:    map[string][]*ast.FuncDecl{},
		globals:  map[string][]ast.Expr{},
		fields:   map[string][]ast.Expr{},
		files:    map[string]*fileScope{},
		calls:    map[string][]*ast.CallExpr{},
		params:   map[*ast.Field]paramOwner{},
		visiting: map[ast.Expr]bool{},
		memo:     map[ast.Expr][]string{},
	}
	for i, root := range summarySources {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(idx.fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			idx.add(f)
			if i == 0 {
				idx.emitters = append(idx.emitters, f)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return idx
}

// calleeName is the name a call uses: f in f(), x.f() and x.y.f().
func calleeName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr:
		return calleeName(f.X)
	}
	return ""
}

// add indexes one file.
func (idx *summaryIndex) add(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			idx.funcs[d.Name.Name] = append(idx.funcs[d.Name.Name], d)
			idx.addParams(d.Type, d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				vs, ok := s.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						idx.globals[n.Name] = append(idx.globals[n.Name], vs.Values[i])
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if name := calleeName(n.Fun); name != "" {
				idx.calls[name] = append(idx.calls[name], n)
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok {
				idx.fields[k.Name] = append(idx.fields[k.Name], n.Value)
				if lit, ok := n.Value.(*ast.FuncLit); ok {
					idx.addParams(lit.Type, k.Name)
				}
			}
		case *ast.AssignStmt:
			idx.addAssign(n)
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) {
					if lit, ok := n.Values[i].(*ast.FuncLit); ok {
						idx.addParams(lit.Type, name.Name)
					}
				}
			}
		}
		return true
	})
	idx.files[idx.fset.Position(f.Pos()).Filename] = newFileScope(f)
}

// addAssign records the fields and function literals an assignment sets.
func (idx *summaryIndex) addAssign(a *ast.AssignStmt) {
	if len(a.Lhs) != len(a.Rhs) {
		return
	}
	for i, lhs := range a.Lhs {
		rhs := a.Rhs[i]
		name := ""
		switch l := lhs.(type) {
		case *ast.Ident:
			name = l.Name
		case *ast.SelectorExpr:
			name = l.Sel.Name
			idx.fields[name] = append(idx.fields[name], rhs)
		}
		if lit, ok := rhs.(*ast.FuncLit); ok && name != "" {
			idx.addParams(lit.Type, name)
		}
	}
}

func (idx *summaryIndex) addParams(ft *ast.FuncType, callee string) {
	if ft.Params == nil {
		return
	}
	i := 0
	for _, f := range ft.Params.List {
		idx.params[f] = paramOwner{callee: callee, index: i}
		if len(f.Names) == 0 {
			i++
		}
		i += len(f.Names)
	}
}

// summaryArg returns the summary argument of a call that makes a
// diagnostic, or nil.
func summaryArg(call *ast.CallExpr) ast.Expr {
	at := -1
	switch calleeName(call.Fun) {
	case "AddError", "AddWarning", "NewErrorDiagnostic", "NewWarningDiagnostic":
		at = 0
	case "AddAttributeError", "AddAttributeWarning", "NewAttributeErrorDiagnostic", "NewAttributeWarningDiagnostic":
		at = 1
	}
	if at < 0 || at >= len(call.Args) {
		return nil
	}
	return call.Args[at]
}

// emittedSummaries evaluates the summary of every diagnostic the provider's
// code makes.
func (idx *summaryIndex) emittedSummaries() []emittedSummary {
	var out []emittedSummary
	emit := func(e ast.Expr) {
		where := idx.fset.Position(e.Pos())
		where.Filename = filepath.ToSlash(filepath.Join("internal/provider", where.Filename))
		for _, s := range idx.eval(e, 0) {
			if strings.Contains(s, passOn) {
				continue
			}
			out = append(out, emittedSummary{text: s, where: fmt.Sprintf("%s:%d", where.Filename, where.Line)})
		}
	}
	for _, f := range idx.emitters {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if e := summaryArg(n); e != nil {
					emit(e)
				}
			case *ast.CompositeLit:
				// tfprotov6.Diagnostic{Summary: ...}
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Diagnostic" {
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Summary" {
								emit(kv.Value)
							}
						}
					}
				}
			}
			return true
		})
	}
	return out
}

// eval returns the texts e can stand for, with holes for what only the run
// knows.
func (idx *summaryIndex) eval(e ast.Expr, depth int) []string {
	if got, ok := idx.memo[e]; ok {
		return got
	}
	if depth > 12 || idx.visiting[e] {
		return []string{hole}
	}
	idx.visiting[e] = true
	defer delete(idx.visiting, e)
	out := dedupe(idx.evalExpr(e, depth+1))
	if len(out) == 0 || len(out) > maxCandidates {
		out = []string{hole}
	}
	idx.memo[e] = out
	return out
}

func (idx *summaryIndex) evalExpr(e ast.Expr, depth int) []string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			if s, err := strconv.Unquote(e.Value); err == nil {
				return []string{s}
			}
		}
	case *ast.ParenExpr:
		return idx.eval(e.X, depth)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return concat(idx.eval(e.X, depth), idx.eval(e.Y, depth))
		}
	case *ast.UnaryExpr:
		if e.Op == token.RANGE {
			if lit, ok := e.X.(*ast.CompositeLit); ok {
				var out []string
				for _, el := range lit.Elts {
					out = append(out, idx.eval(el, depth)...)
				}
				return out
			}
		}
	case *ast.Ident:
		return idx.evalIdent(e, depth)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && idx.isPackage(x) {
			// pkg.Name: a constant of another package.
			return idx.evalAll(idx.globals[e.Sel.Name], depth)
		}
		return idx.evalAll(idx.fields[e.Sel.Name], depth)
	case *ast.CallExpr:
		return idx.evalCall(e, depth)
	}
	return []string{hole}
}

func (idx *summaryIndex) evalAll(exprs []ast.Expr, depth int) []string {
	var out []string
	for _, x := range exprs {
		out = append(out, idx.eval(x, depth)...)
	}
	if len(out) == 0 {
		return []string{hole}
	}
	return out
}

func (idx *summaryIndex) evalIdent(id *ast.Ident, depth int) []string {
	fs := idx.files[idx.fset.Position(id.Pos()).Filename]
	if fs == nil {
		return []string{hole}
	}
	d, ok := fs.resolve(id)
	if !ok {
		return idx.evalAll(idx.globals[id.Name], depth)
	}
	if d.param != nil {
		owner, ok := idx.params[d.param]
		if !ok {
			return []string{hole}
		}
		at := owner.index
		for i, n := range d.param.Names {
			if n.Name == id.Name {
				at += i
			}
		}
		var out []string
		for _, call := range idx.calls[owner.callee] {
			if at < len(call.Args) {
				out = append(out, idx.eval(call.Args[at], depth)...)
			}
		}
		return out
	}
	return idx.evalAll(d.values, depth)
}

// isPackage reports whether id names an imported package in its file.
func (idx *summaryIndex) isPackage(id *ast.Ident) bool {
	fs := idx.files[idx.fset.Position(id.Pos()).Filename]
	if fs == nil || !fs.imports[id.Name] {
		return false
	}
	_, local := fs.resolve(id)
	return !local
}

func (idx *summaryIndex) evalCall(call *ast.CallExpr, depth int) []string {
	if passesOn(call) {
		return []string{passOn}
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == "fmt" && sel.Sel.Name == "Sprintf" && len(call.Args) > 0 {
			return idx.sprintf(call, depth)
		}
		if x, ok := sel.X.(*ast.Ident); ok && idx.isPackage(x) && (x.Name == "strings" || x.Name == "strconv" || x.Name == "fmt") {
			return []string{hole}
		}
	}
	// A function of the sources that returns one string: what it returns.
	// Functions of the caller's package hide those of the same name
	// elsewhere.
	decls := idx.funcs[calleeName(call.Fun)]
	dir := filepath.Dir(idx.fset.Position(call.Pos()).Filename)
	var local []*ast.FuncDecl
	for _, fd := range decls {
		if filepath.Dir(idx.fset.Position(fd.Pos()).Filename) == dir {
			local = append(local, fd)
		}
	}
	if len(local) > 0 {
		decls = local
	}
	var out []string
	for _, fd := range decls {
		if fd.Body == nil || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 || len(fd.Type.Results.List[0].Names) > 1 {
			continue
		}
		if rt, ok := fd.Type.Results.List[0].Type.(*ast.Ident); !ok || rt.Name != "string" {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				if len(n.Results) == 1 {
					out = append(out, idx.eval(n.Results[0], depth)...)
				}
			}
			return true
		})
	}
	if len(out) == 0 {
		return []string{hole}
	}
	return out
}

// passesOn reports whether call is, or takes, another diagnostic's
// summary: d.Summary(), redact(d.Summary()).
func passesOn(call *ast.CallExpr) bool {
	found := false
	ast.Inspect(call, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 0 && calleeName(c.Fun) == "Summary" {
			found = true
		}
		return !found
	})
	return found
}

// sprintf evaluates fmt.Sprintf: each verb is its argument's text when that
// is words (a name like "Application <ns>/<name>", one of a few fixed
// reasons), else a hole.
func (idx *summaryIndex) sprintf(call *ast.CallExpr, depth int) []string {
	var out []string
	for _, format := range idx.eval(call.Args[0], depth) {
		parts := []string{""}
		arg := 1
		for i := 0; i < len(format); i++ {
			c := format[i]
			if c != '%' {
				parts = concat(parts, []string{string(c)})
				continue
			}
			j := i + 1
			for j < len(format) && strings.ContainsRune("+-# 0123456789.", rune(format[j])) {
				j++
			}
			if j >= len(format) {
				break
			}
			verb := format[j]
			i = j
			if verb == '%' {
				parts = concat(parts, []string{"%"})
				continue
			}
			texts := []string{hole}
			if arg < len(call.Args) {
				if got := idx.eval(call.Args[arg], depth); (verb == 's' || verb == 'v') && allWords(got) {
					texts = got
				}
			}
			arg++
			parts = concat(parts, texts)
		}
		out = append(out, parts...)
	}
	return out
}

func concat(a, b []string) []string {
	if len(a)*len(b) > maxCandidates {
		return []string{hole}
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		s = collapseHoles(s)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func collapseHoles(s string) string {
	for strings.Contains(s, hole+hole) {
		s = strings.ReplaceAll(s, hole+hole, hole)
	}
	return s
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// allWords reports whether every text has words of its own.
func allWords(texts []string) bool {
	for _, s := range texts {
		if !hasLetter(s) || strings.Contains(s, passOn) {
			return false
		}
	}
	return true
}

func printable(s string) string {
	return strings.ReplaceAll(s, hole, "…")
}

var (
	boldSpan    = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	codeSpan    = regexp.MustCompile("`([^`]+)`")
	placeholder = regexp.MustCompile(`<[^<>\s]+>`)
)

// guideEntries are the titles the guide gives: bold text (code marks
// removed) and code spans, with each <placeholder> a hole.
func guideEntries(guide string) []string {
	var out []string
	add := func(s string) {
		s = collapseHoles(placeholder.ReplaceAllString(strings.Join(strings.Fields(s), " "), hole))
		if hasLetter(s) {
			out = append(out, s)
		}
	}
	for _, m := range boldSpan.FindAllStringSubmatch(guide, -1) {
		add(strings.ReplaceAll(m[1], "`", ""))
	}
	for _, m := range codeSpan.FindAllStringSubmatch(guide, -1) {
		add(m[1])
	}
	return out
}

// coveredBy reports whether some entry can be the same text as summary,
// holes on either side standing for any text.
func coveredBy(summary string, entries []string) bool {
	s := []rune(summary)
	for _, e := range entries {
		if globsMeet(s, []rune(e)) {
			return true
		}
	}
	return false
}

// globsMeet reports whether some text matches both a and b, where a hole
// matches any text (including the other side's hole).
func globsMeet(a, b []rune) bool {
	h := []rune(hole)[0]
	memo := map[[2]int]bool{}
	seen := map[[2]int]bool{}
	var meet func(i, j int) bool
	meet = func(i, j int) bool {
		k := [2]int{i, j}
		if seen[k] {
			return memo[k]
		}
		seen[k] = true
		var r bool
		switch {
		case i == len(a) && j == len(b):
			r = true
		case i < len(a) && a[i] == h:
			r = meet(i+1, j) || (j < len(b) && meet(i, j+1))
		case j < len(b) && b[j] == h:
			r = meet(i, j+1) || (i < len(a) && meet(i+1, j))
		case i < len(a) && j < len(b):
			r = a[i] == b[j] && meet(i+1, j+1)
		}
		memo[k] = r
		return r
	}
	return meet(0, 0)
}

// fileScope resolves a file's local names: the parameters and variables of
// the functions around a use. It stands in for a type checker, which would
// need the compiled dependencies; shadowing inside one function is not
// told apart (every value given to the name there counts).
type fileScope struct {
	funcs   []scopeFunc
	imports map[string]bool
}

// scopeFunc is a function declaration or literal.
type scopeFunc struct {
	node ast.Node
	typ  *ast.FuncType
	body *ast.BlockStmt
}

// localDecl is what a local name stands for: a parameter, or the values
// assigned to a variable.
type localDecl struct {
	param  *ast.Field
	values []ast.Expr
}

func newFileScope(f *ast.File) *fileScope {
	fs := &fileScope{imports: map[string]bool{}}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		fs.imports[name] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				fs.funcs = append(fs.funcs, scopeFunc{node: n, typ: n.Type, body: n.Body})
			}
		case *ast.FuncLit:
			fs.funcs = append(fs.funcs, scopeFunc{node: n, typ: n.Type, body: n.Body})
		}
		return true
	})
	return fs
}

// resolve finds the declaration of id in the innermost function around it
// that declares the name; false when none does (a package-level name).
func (fs *fileScope) resolve(id *ast.Ident) (localDecl, bool) {
	var around []scopeFunc
	for _, fn := range fs.funcs {
		if fn.node.Pos() <= id.Pos() && id.Pos() < fn.node.End() {
			around = append(around, fn)
		}
	}
	// Innermost first: a function inside another starts later.
	sort.Slice(around, func(i, j int) bool { return around[i].node.Pos() > around[j].node.Pos() })
	for _, fn := range around {
		if d, ok := fn.declares(id.Name); ok {
			return d, true
		}
	}
	return localDecl{}, false
}

// declares returns what name stands for in fn: a parameter, or every value
// a variable of fn (declared in fn's own body, not in a nested function
// literal) is given anywhere in fn.
func (fn scopeFunc) declares(name string) (localDecl, bool) {
	if fn.typ.Params != nil {
		for _, f := range fn.typ.Params.List {
			for _, n := range f.Names {
				if n.Name == name {
					return localDecl{param: f}, true
				}
			}
		}
	}
	declared := false
	var values []ast.Expr
	ast.Inspect(fn.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			// Its own variables are its own; assignments to ours count.
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if a, ok := m.(*ast.AssignStmt); ok && a.Tok == token.ASSIGN {
					values = append(values, assignedTo(a, name)...)
				}
				return true
			})
			return false
		case *ast.AssignStmt:
			got := assignedTo(n, name)
			if n.Tok == token.DEFINE && len(got) > 0 {
				declared = true
			}
			values = append(values, got...)
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if id.Name == name {
					declared = true
					if i < len(n.Values) {
						values = append(values, n.Values[i])
					}
				}
			}
		case *ast.RangeStmt:
			if v, ok := n.Value.(*ast.Ident); ok && v.Name == name && n.Tok == token.DEFINE {
				// for _, v := range X: v stands for X's elements.
				declared = true
				values = append(values, &ast.UnaryExpr{Op: token.RANGE, X: n.X})
			}
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == name && n.Tok == token.DEFINE {
				declared = true
				values = append(values, &ast.BadExpr{})
			}
		}
		return true
	})
	return localDecl{values: values}, declared
}

// assignedTo returns the values a assigns to the variable name.
func assignedTo(a *ast.AssignStmt, name string) []ast.Expr {
	var out []ast.Expr
	for i, lhs := range a.Lhs {
		if id, ok := lhs.(*ast.Ident); ok && id.Name == name {
			if len(a.Lhs) == len(a.Rhs) {
				out = append(out, a.Rhs[i])
			} else {
				out = append(out, &ast.BadExpr{}) // one of several results
			}
		}
	}
	return out
}
