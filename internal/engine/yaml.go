package engine

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Limits of the loader.
const (
	// maxFileSize is DP's limit on one schema file.
	maxFileSize = 1 << 20
	// maxDepth bounds the nesting of any loaded document (schemas and
	// settings), so hostile input fails with an error instead of
	// exhausting the stack.
	maxDepth = 512
	// maxAliasNodes bounds the number of nodes YAML aliases may expand to
	// (protection against "billion laughs" alias bombs).
	maxAliasNodes = 1_000_000
)

// keyOrder remembers the source order of the keys of every mapping loaded
// from a file, keyed by the identity of the map. Maps are never copied
// without carrying their order along (see deepCopy).
type keyOrder map[uintptr][]string

func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

// keys returns the keys of m in source order when known; keys without a
// known position follow in sorted order.
func (o keyOrder) keys(m map[string]any) []string {
	var out []string
	seen := make(map[string]bool, len(m))
	if o != nil {
		for _, k := range o[mapID(m)] {
			if _, ok := m[k]; ok && !seen[k] {
				out = append(out, k)
				seen[k] = true
			}
		}
	}
	if len(out) == len(m) {
		return out
	}
	rest := slices.DeleteFunc(slices.Sorted(maps.Keys(m)), func(k string) bool { return seen[k] })
	return append(out, rest...)
}

func (o keyOrder) set(m map[string]any, ks []string) {
	if o != nil && len(ks) > 0 {
		o[mapID(m)] = ks
	}
}

func (o keyOrder) copyTo(from, to map[string]any) {
	if o == nil {
		return
	}
	if ks, ok := o[mapID(from)]; ok {
		o[mapID(to)] = ks
	}
}

// parseDocument decodes a schema file (YAML or JSON, which is YAML) into the
// JSON data model: map[string]any, []any, string, bool, int64, float64, nil.
//
// It reads YAML as DP does (sigs.k8s.io/yaml on go-yaml v2, YAML 1.1):
//   - the unquoted, untagged words y, Y, yes, Yes, YES, on, On, ON, true,
//     True, TRUE are true, and n, N, no, No, NO, off, Off, OFF, false, False,
//     FALSE are false;
//   - a key that is a boolean or a number becomes its JSON text ("true",
//     "1"), as sigs.k8s.io/yaml turns it when converting to JSON;
//   - a mapping is read in document order and a later entry replaces an
//     earlier one of the same key, also when the earlier or later entry
//     comes from a `<<` merge key; among the mappings of one `<<: [...]`
//     list the first wins; a duplicate key is allowed (a note, see
//     parseDocumentNotes);
//   - !!binary scalars are decoded from base64.
//
// Anchors and aliases are supported; null and complex keys, too deep
// nesting, alias bombs and files over 1 MiB are errors naming the file.
func parseDocument(file string, data []byte, order keyOrder) (any, error) {
	v, _, err := parseDocumentNotes(file, data, order)
	return v, err
}

// parseDocumentNotes is parseDocument that also returns what DP accepts but
// the author probably did not mean (a duplicate key, a key read as a
// boolean), each as a *SchemaError naming the place; Verify reports them.
func parseDocumentNotes(file string, data []byte, order keyOrder) (any, []*SchemaError, error) {
	if len(data) > maxFileSize {
		return nil, nil, &SchemaError{File: file, Message: fmt.Sprintf("file is %d bytes, larger than the limit of %d bytes (1 MiB)", len(data), maxFileSize)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, &SchemaError{File: file, Message: "file is empty"}
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if strings.Contains(msg, "exceeded max depth") {
			return nil, nil, &SchemaError{File: file, Message: "nesting deeper than the YAML parser's limit: " + msg}
		}
		return nil, nil, &SchemaError{File: file, Message: "malformed YAML: " + msg}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, nil, &SchemaError{File: file, Message: "file holds more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, nil, &SchemaError{File: file, Message: "malformed YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	c := &yamlConv{file: file, order: order}
	v, err := c.convert(&root, "", 0)
	if err != nil {
		return nil, nil, err
	}
	return v, c.notes, nil
}

type yamlConv struct {
	file  string
	order keyOrder
	nodes int // nodes produced by alias expansion
	// active anchors being expanded, to reject recursive aliases
	active map[*yaml.Node]bool
	notes  []*SchemaError
	noted  map[string]bool // notes already taken (aliases convert a node again)
}

func (c *yamlConv) note(path string, line, col int, format string, args ...any) {
	key := strconv.Itoa(line) + ":" + strconv.Itoa(col)
	if c.noted[key] {
		return
	}
	if c.noted == nil {
		c.noted = map[string]bool{}
	}
	c.noted[key] = true
	c.notes = append(c.notes, &SchemaError{File: c.file, SchemaPath: path, Message: fmt.Sprintf(format, args...)})
}

func (c *yamlConv) errf(path, format string, args ...any) error {
	return &SchemaError{File: c.file, SchemaPath: path, Message: fmt.Sprintf(format, args...)}
}

func (c *yamlConv) convert(n *yaml.Node, path string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, c.errf(path, "nesting deeper than %d levels", maxDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.convert(n.Content[0], path, depth)
	case yaml.AliasNode:
		if c.active == nil {
			c.active = map[*yaml.Node]bool{}
		}
		if c.active[n.Alias] {
			return nil, c.errf(path, "YAML alias *%s refers to itself", n.Value)
		}
		c.active[n.Alias] = true
		defer delete(c.active, n.Alias)
		c.nodes += countNodes(n.Alias, maxAliasNodes)
		if c.nodes > maxAliasNodes {
			return nil, c.errf(path, "YAML aliases expand to more than %d nodes (excessive aliasing, an alias bomb?)", maxAliasNodes)
		}
		return c.convert(n.Alias, path, depth)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			v, err := c.convert(item, path+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.mapping(n, path, depth)
	case yaml.ScalarNode:
		return c.scalar(n, path)
	}
	return nil, c.errf(path, "unsupported YAML node at line %d", n.Line)
}

func (c *yamlConv) mapping(n *yaml.Node, path string, depth int) (any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var keys []string
	set := func(k string, v any) {
		if _, ok := out[k]; !ok {
			keys = append(keys, k)
		}
		out[k] = v
	}
	explicitLine := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.Tag == "!!merge" {
			// go-yaml v2: the merged keys replace the ones set so far; of a
			// list of mappings the first wins (applied last).
			srcs := []*yaml.Node{vn}
			if resolveAlias(vn).Kind == yaml.SequenceNode {
				srcs = resolveAlias(vn).Content
			}
			for j := len(srcs) - 1; j >= 0; j-- {
				v, err := c.convert(srcs[j], path, depth)
				if err != nil {
					return nil, err
				}
				mm, ok := v.(map[string]any)
				if !ok {
					return nil, c.errf(path, "merge key << at line %d needs a mapping or a list of mappings", vn.Line)
				}
				for _, k := range c.order.keys(mm) {
					set(k, mm[k])
				}
			}
			continue
		}
		k, err := c.key(kn, path)
		if err != nil {
			return nil, err
		}
		if first, dup := explicitLine[k]; dup {
			c.note(path, kn.Line, kn.Column, "duplicate key %q at line %d (first at line %d): DP reads the file with go-yaml v2, which keeps the last value", k, kn.Line, first)
		} else {
			explicitLine[k] = kn.Line
		}
		v, err := c.convert(vn, path+"/"+escapePointer(k), depth+1)
		if err != nil {
			return nil, err
		}
		set(k, v)
	}
	c.order.set(out, keys)
	return out, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// key returns a mapping key as DP sees it: a string as is; a boolean or a
// number (YAML 1.1) as its JSON text, as sigs.k8s.io/yaml converts it, with
// a note when that text differs from what the file says.
func (c *yamlConv) key(kn *yaml.Node, path string) (string, error) {
	kn = resolveAlias(kn)
	if kn.Kind != yaml.ScalarNode {
		return "", c.errf(path, "mapping key at line %d is not a string", kn.Line)
	}
	v, err := c.scalar(kn, path)
	if err != nil {
		return "", err
	}
	var k string
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		k = strconv.FormatBool(x)
	case int64:
		k = strconv.FormatInt(x, 10)
	case float64:
		k = strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return "", c.errf(path, "mapping key %q at line %d is not a string (YAML type %s); quote it", kn.Value, kn.Line, strings.TrimPrefix(kn.Tag, "!!"))
	}
	if k != kn.Value {
		c.note(path, kn.Line, kn.Column, "mapping key %s at line %d is read by DP (YAML 1.1) as %q; quote it if %q is meant", kn.Value, kn.Line, k, kn.Value)
	}
	return k, nil
}

// yaml11Bools are the booleans of YAML 1.1 as go-yaml v2 resolves them.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"on": true, "On": true, "ON": true, "true": true, "True": true, "TRUE": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"off": false, "Off": false, "OFF": false, "false": false, "False": false, "FALSE": false,
}

// plainStyle reports whether a scalar was written without quotes, block
// style or an explicit tag, so YAML resolves its type from its text.
func plainStyle(n *yaml.Node) bool {
	return n.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
}

func (c *yamlConv) scalar(n *yaml.Node, path string) (any, error) {
	if n.Tag == "!!str" && plainStyle(n) {
		if b, ok := yaml11Bools[n.Value]; ok {
			return b, nil
		}
	}
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		b, ok := yaml11Bools[n.Value]
		if !ok {
			return nil, c.errf(path, "invalid boolean %q at line %d", n.Value, n.Line)
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, c.errf(path, "invalid integer %q at line %d", n.Value, n.Line)
		}
		return f, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, c.errf(path, "invalid number %q at line %d", n.Value, n.Line)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, c.errf(path, "number %q at line %d is not finite", n.Value, n.Line)
		}
		return f, nil
	case "!!binary":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			return nil, c.errf(path, "invalid !!binary value at line %d: %v", n.Line, err)
		}
		return string(b), nil
	case "!!str", "!!timestamp", "":
		return n.Value, nil
	}
	return nil, c.errf(path, "unsupported YAML tag %s at line %d", n.Tag, n.Line)
}

// countNodes counts the nodes of a subtree, stopping early past limit.
func countNodes(n *yaml.Node, limit int) int {
	count := 0
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if count > limit || depth > maxDepth {
			count = limit + 1
			return
		}
		count++
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			walk(n.Alias, depth+1)
			return
		}
		for _, ch := range n.Content {
			walk(ch, depth+1)
		}
	}
	walk(n, 0)
	return count
}

func unescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
