package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// TestYAML_ReadsDocumentsAsDP parses each document with the engine and with
// sigs.k8s.io/yaml (go-yaml v2), which DP reads schemas with, and wants the
// same JSON: YAML 1.1 booleans, keys that are booleans or numbers, duplicate
// keys and the order of `<<` merge keys.
func TestYAML_ReadsDocumentsAsDP(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, doc string }{
		{"YAML 1.1 true words", "a: y\nb: Y\nc: yes\nd: Yes\ne: YES\nf: on\ng: On\nh: ON\ni: true\nj: True\nk: TRUE\n"},
		{"YAML 1.1 false words", "a: n\nb: N\nc: no\nd: No\ne: NO\nf: off\ng: Off\nh: OFF\ni: false\nj: False\nk: FALSE\n"},
		{"mixed case is a string", "a: oN\nb: yEs\nc: tRue\nd: nO\n"},
		{"quoted and tagged words are strings", "a: 'on'\nb: \"yes\"\nc: !!str off\nd: |\n  y\n"},
		{"tagged bool", "a: !!bool yes\nb: !!bool off\n"},
		{"booleans in lists and flow", "a: [on, off, y, n]\nb: {c: yes}\n"},
		{"enum of booleans", "type: string\nenum: [on, off, 'on']\n"},
		{"boolean keys", "properties:\n  y: {}\n  on: {}\n  n: {}\n"},
		{"number keys", "a:\n  1: x\n  1.5: y\n  0x1F: z\n"},
		{"duplicate key keeps the last", "type: object\ntype: string\n"},
		{"duplicate object key keeps the last whole", "a: {b: 1}\na: {c: 2}\n"},
		{"merge after an explicit key replaces it", "x: &x {p: 1, q: 1}\ny:\n  p: 0\n  <<: *x\n"},
		{"explicit key after a merge replaces it", "x: &x {p: 1, q: 1}\ny:\n  <<: *x\n  p: 0\n"},
		{"first mapping of a merge list wins", "a: &a {p: 1}\nb: &b {p: 2, r: 2}\nc:\n  <<: [*a, *b]\n"},
		{"merge is not deep", "a: &a {p: {x: 1}}\nc:\n  p: {y: 2}\n  <<: *a\n"},
		{"numbers", "a: 017\nb: 0x1F\nc: 1_000\nd: .5\ne: 1e3\nf: 1.0\ng: -0\nh: +1\n"},
		{"nulls", "a: ~\nb: null\nc: Null\nd: NULL\ne:\n"},
		{"timestamps stay strings", "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\n"},
		{"binary is decoded", "a: !!binary aGVsbG8=\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want, err := sigsyaml.YAMLToJSON([]byte(tc.doc))
			if err != nil {
				t.Fatalf("sigs.k8s.io/yaml: %v", err)
			}
			got, err := parseDocument("doc.yaml", []byte(tc.doc), keyOrder{})
			if err != nil {
				t.Fatalf("engine: %v", err)
			}
			var wantV any
			if err := json.Unmarshal(want, &wantV); err != nil {
				t.Fatal(err)
			}
			gotJSON, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var gotV any
			if err := json.Unmarshal(gotJSON, &gotV); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotV, wantV) {
				t.Fatalf("engine reads\n  %s\nDP reads\n  %s", gotJSON, want)
			}
		})
	}
}

// TestYAML_SurprisesAreNotes: what DP accepts but the author probably did not
// mean is loaded as DP loads it and reported as a note naming the place.
func TestYAML_SurprisesAreNotes(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, doc, path, want string }{
		{"duplicate key", "type: object\nproperties:\n  a: {type: string}\n  a: {type: integer}\n", "/properties", `duplicate key "a" at line 4 (first at line 3)`},
		{"key read as a boolean", "type: object\nproperties:\n  y: {type: string}\n", "/properties", `mapping key y at line 3 is read by DP (YAML 1.1) as "true"`},
		{"hex key", "x:\n  0x1F: a\n", "/x", `mapping key 0x1F at line 2 is read by DP (YAML 1.1) as "31"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, notes, err := parseDocumentNotes("openapi/settings.yaml", []byte(tc.doc), keyOrder{})
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != 1 || notes[0].SchemaPath != tc.path || !strings.Contains(notes[0].Message, tc.want) {
				t.Fatalf("notes %v, want one at %s containing %q", notes, tc.path, tc.want)
			}
		})
	}
	_, notes, err := parseDocumentNotes("f", []byte("a: 'y'\nb: true\n'n': 1\n"), keyOrder{})
	if err != nil || len(notes) != 0 {
		t.Fatalf("plain document: notes %v, err %v", notes, err)
	}
}
