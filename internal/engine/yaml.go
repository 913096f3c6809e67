package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
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
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
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
// Anchors, aliases and `<<` merge keys are supported; non-string keys, too
// deep nesting, alias bombs and files over 1 MiB are errors naming the file.
func parseDocument(file string, data []byte, order keyOrder) (any, error) {
	if len(data) > maxFileSize {
		return nil, &SchemaError{File: file, Message: fmt.Sprintf("file is %d bytes, larger than the limit of %d bytes (1 MiB)", len(data), maxFileSize)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &SchemaError{File: file, Message: "file is empty"}
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if strings.Contains(msg, "exceeded max depth") {
			return nil, &SchemaError{File: file, Message: "nesting deeper than the YAML parser's limit: " + msg}
		}
		return nil, &SchemaError{File: file, Message: "malformed YAML: " + msg}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &SchemaError{File: file, Message: "file holds more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, &SchemaError{File: file, Message: "malformed YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	c := &yamlConv{file: file, order: order}
	return c.convert(&root, "", 0)
}

type yamlConv struct {
	file  string
	order keyOrder
	nodes int // nodes produced by alias expansion
	// active anchors being expanded, to reject recursive aliases
	active map[*yaml.Node]bool
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
	explicit := map[string]bool{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.Tag == "!!merge" {
			merges = append(merges, vn)
			continue
		}
		k, err := c.key(kn, path)
		if err != nil {
			return nil, err
		}
		if explicit[k] {
			return nil, c.errf(path, "duplicate key %q at line %d", k, kn.Line)
		}
		v, err := c.convert(vn, path+"/"+escapePointer(k), depth+1)
		if err != nil {
			return nil, err
		}
		explicit[k] = true
		out[k] = v
		keys = append(keys, k)
	}
	// Merge keys: explicit keys win; among merged mappings the first wins.
	for _, m := range merges {
		srcs := []*yaml.Node{m}
		if resolveAlias(m).Kind == yaml.SequenceNode {
			srcs = resolveAlias(m).Content
		}
		for _, s := range srcs {
			v, err := c.convert(s, path, depth)
			if err != nil {
				return nil, err
			}
			mm, ok := v.(map[string]any)
			if !ok {
				return nil, c.errf(path, "merge key << at line %d needs a mapping or a list of mappings", m.Line)
			}
			for _, k := range c.order.keys(mm) {
				if _, ok := out[k]; !ok {
					out[k] = mm[k]
					keys = append(keys, k)
				}
			}
		}
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

func (c *yamlConv) key(kn *yaml.Node, path string) (string, error) {
	kn = resolveAlias(kn)
	if kn.Kind != yaml.ScalarNode {
		return "", c.errf(path, "mapping key at line %d is not a string", kn.Line)
	}
	switch kn.Tag {
	case "!!str", "":
		return kn.Value, nil
	}
	return "", c.errf(path, "mapping key %q at line %d is not a string (YAML type %s); quote it", kn.Value, kn.Line, strings.TrimPrefix(kn.Tag, "!!"))
}

func (c *yamlConv) scalar(n *yaml.Node, path string) (any, error) {
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
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
	case "!!str", "!!timestamp", "!!binary", "":
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
