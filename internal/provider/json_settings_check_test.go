package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/jsonvalue"
)

// The resource's effective_settings and last_applied_settings are strings,
// each holding one JSON document in the canonical encoding of
// convert.ToJSONString (compact, object keys sorted, no HTML escaping, an
// integral number as an integer). The data sources, the ephemeral resource
// and the effective_settings function keep objects.

// effectiveSettings is the resource's effective_settings: check it with
// jsonAt.
var effectiveSettings = tfjsonpath.New("effective_settings")

// jsonAt is a knownvalue.Check of a string attribute holding one JSON
// document: the string is in the canonical encoding, and the member at the
// dotted path in the document (the whole document for "") passes check.
// Numbers reach check as json.Number, as knownvalue's checks of a plan or a
// state expect them.
func jsonAt(path string, check knownvalue.Check) knownvalue.Check {
	return jsonDocCheck{path: path, check: check}
}

type jsonDocCheck struct {
	path  string
	check knownvalue.Check
}

func (c jsonDocCheck) CheckValue(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected a string holding a JSON document, got %T %v", v, v)
	}
	doc, err := decodeJSONDocument(s)
	if err != nil {
		return err
	}
	if err := checkCanonicalJSON(s); err != nil {
		return err
	}
	at := doc
	if c.path != "" {
		for _, k := range strings.Split(c.path, ".") {
			m, ok := at.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: the parent of %q is not an object in %s", c.path, k, s)
			}
			if at, ok = m[k]; !ok {
				return fmt.Errorf("%s: no member %q in %s", c.path, k, s)
			}
		}
	}
	if err := c.check.CheckValue(at); err != nil {
		return fmt.Errorf("%q of %s: %w", c.path, s, err)
	}
	return nil
}

func (c jsonDocCheck) String() string {
	return fmt.Sprintf("JSON string with %q: %s", c.path, c.check)
}

// decodeJSONDocument decodes one JSON document, numbers as json.Number.
func decodeJSONDocument(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a JSON document: %w: %s", err, s)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON document: %s", s)
	}
	return doc, nil
}

// checkCanonicalJSON fails unless s is one JSON document in the encoding of
// convert.ToJSONString (jsonvalue.Canonical): compact, object keys sorted, no HTML escaped, every
// integral number as an integer.
func checkCanonicalJSON(s string) error {
	doc, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		return fmt.Errorf("not a JSON document: %w: %s", err, s)
	}
	if want, _ := jsonvalue.Canonical(doc); string(want) != s {
		return fmt.Errorf("JSON string not in the canonical encoding:\n got %s\nwant %s", s, want)
	}
	return nil
}

// sameJSONDocument is a compare.ValueComparer of values of which any may be
// a string holding a JSON document (the resource's settings attributes) and
// the others objects (the data source's): each holds the same document as
// the one before it, numbers compared by value.
func sameJSONDocument() compare.ValueComparer { return jsonDocumentsSame{} }

type jsonDocumentsSame struct{}

func (jsonDocumentsSame) CompareValues(values ...any) error {
	docs := make([]any, len(values))
	for i, v := range values {
		if s, ok := v.(string); ok {
			doc, err := decodeJSONDocument(s)
			if err != nil {
				return err
			}
			v = doc
		}
		docs[i] = numbersByValue(v)
	}
	for i := 1; i < len(docs); i++ {
		if !jsonvalue.Equal(docs[i-1], docs[i]) {
			return fmt.Errorf("expected the same JSON document, but they differ: %v != %v", values[i-1], values[i])
		}
	}
	return nil
}

// numbersByValue is a decoded JSON value (numbers as json.Number, or Go
// numbers) in the JSON data model.
func numbersByValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	out, err := jsonvalue.Decode(b)
	if err != nil {
		return v
	}
	return out
}

func TestJSONAt_ChecksTheCanonicalEncodingAndAMember(t *testing.T) {
	ok := []struct {
		value any
		check knownvalue.Check
	}{
		{`{"replicas":2,"storage":{"mode":"Internal"},"storageClass":"fast"}`, jsonAt("storage.mode", knownvalue.StringExact("Internal"))},
		{`{"replicas":2,"storageClass":"fast"}`, jsonAt("replicas", knownvalue.Int64Exact(2))},
		{`{"a":"<b>&","ratio":1.5}`, jsonAt("", knownvalue.ObjectExact(map[string]knownvalue.Check{
			"a": knownvalue.StringExact("<b>&"), "ratio": knownvalue.Float64Exact(1.5),
		}))},
	}
	for _, c := range ok {
		if err := c.check.CheckValue(c.value); err != nil {
			t.Errorf("%v: %v", c.value, err)
		}
	}
	bad := []struct {
		value any
		check knownvalue.Check
	}{
		{map[string]any{"replicas": json.Number("2")}, jsonAt("replicas", knownvalue.Int64Exact(2))}, // an object, not a string
		{nil, jsonAt("", knownvalue.NotNull())},
		{`{"storageClass":"fast","replicas":2}`, jsonAt("replicas", knownvalue.Int64Exact(2))}, // keys not sorted
		{`{"replicas": 2}`, jsonAt("replicas", knownvalue.Int64Exact(2))},                      // not compact
		{`{"a":"\u003cb\u003e"}`, jsonAt("a", knownvalue.StringExact("<b>"))},                  // HTML escaped
		{`{"replicas":2.0}`, jsonAt("replicas", knownvalue.NotNull())},                         // integral as 2.0
		{`{"replicas":2}`, jsonAt("replicas", knownvalue.Int64Exact(3))},                       // another value
		{`{"replicas":2}`, jsonAt("storage.mode", knownvalue.NotNull())},                       // no such member
		{`{"replicas":2} {}`, jsonAt("", knownvalue.NotNull())},                                // two documents
	}
	for _, c := range bad {
		if err := c.check.CheckValue(c.value); err == nil {
			t.Errorf("%v passed %s", c.value, c.check)
		}
	}
}

func TestSameJSONDocument_ComparesAStringsDocumentWithAnObject(t *testing.T) {
	obj := map[string]any{"replicas": json.Number("2"), "storage": map[string]any{"mode": "Internal"}, "list": []any{json.Number("1e0")}}
	if err := sameJSONDocument().CompareValues(`{"list":[1],"replicas":2,"storage":{"mode":"Internal"}}`, obj); err != nil {
		t.Error(err)
	}
	if err := sameJSONDocument().CompareValues(`{"list":[1],"replicas":3,"storage":{"mode":"Internal"}}`, obj); err == nil {
		t.Error("different documents compared the same")
	}
	if err := sameJSONDocument().CompareValues(nil, nil); err != nil {
		t.Errorf("two nulls: %v", err)
	}
	if err := sameJSONDocument().CompareValues(`{}`, nil); err == nil {
		t.Error("a document compared the same as null")
	}
}
