package engine

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
)

var fuzzPackages = sync.OnceValues(func() ([]*Package, error) {
	var out []*Package
	for _, name := range []string{"postgres", "monitoring", "runner", "objectstore"} {
		p, err := LoadDir(filepath.Join("testdata", "packages", name))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
})

// FuzzEvaluate feeds arbitrary JSON documents as settings, previous settings
// and hook values to every test package: Evaluate must never panic, and its
// result must keep its invariants.
func FuzzEvaluate(f *testing.F) {
	seeds := [][3]string{
		{`{}`, ``, ``},
		{`null`, ``, ``},
		{`"x"`, ``, ``},
		{`[1,2]`, `{}`, ``},
		{`{"instances": 3, "highAvailability": true, "storage": {"mode": "External", "external": {"host": "h"}}}`, `{"instances": 1, "storage": {"mode": "Internal"}, "storageClass": "ssd"}`, `{"internal": {"adminPassword": "x"}}`},
		{`{"tls": {"enabled": false}, "persistence": {"size": "1Gi"}, "pools": {"a": {"zone": "z", "replicas": 1e300}}}`, `{"tls": {"enabled": true}, "persistence": {"size": "2Gi"}, "pools": {"a": {"zone": "y"}}}`, ``},
		{`{"scrapeInterval": "bogus", "tolerations": [null, {}, {"operator": "Exists", "value": 1}]}`, ``, `[]`},
		{`{"capacityGi": -1, "tiers": [{"name": "a", "storageClass": 5}], "bucketClass": ""}`, `{"capacityGi": "big"}`, `{"internal": {"endpoints": "x"}}`},
		{`{"drainTimeout": "1h"}`, `{"drainTimeout": 5}`, `null`},
		{`{"a": {"a": {"a": {"a": {"a": [[[[[[{}]]]]]]}}}}}`, `{"a": []}`, `{"b": {"c": null}}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]), []byte(s[2]))
	}
	pkgs, err := fuzzPackages()
	if err != nil {
		f.Skipf("test packages do not load: %v", err)
	}
	catalog := Catalog{
		"storageclasses": {Default: "ssd", Available: []string{"ssd", "hdd"}},
		"bucketclasses":  {Default: "standard", Available: []string{"standard"}},
	}
	f.Fuzz(func(t *testing.T, settings, previous, hook []byte) {
		var req Request
		if !decodeFuzzJSON(settings, &req.Settings) {
			return
		}
		if len(previous) > 0 {
			if !decodeFuzzJSON(previous, &req.Previous) {
				return
			}
			req.HasPrevious = true
		}
		if len(hook) > 0 && !decodeFuzzJSON(hook, &req.HookValues) {
			return
		}
		req.Catalog = catalog
		for _, p := range pkgs {
			res := p.Evaluate(req)
			if res.OK() != (len(res.Problems) == 0) {
				t.Fatal("OK disagrees with Problems")
			}
			_, isObject := req.Settings.(map[string]any)
			if req.Settings == nil {
				isObject = true
			}
			if !isObject && res.Effective != nil {
				t.Fatal("effective settings computed for settings that are not an object")
			}
			for i, pr := range res.Problems {
				if pr == nil || pr.Message == "" || pr.Kind == "" || pr.Document == "" {
					t.Fatalf("incomplete problem %+v", pr)
				}
				if i > 0 {
					a := res.Problems[i-1]
					if a.Document > pr.Document || (a.Document == pr.Document && a.Path.String() > pr.Path.String()) {
						t.Fatal("problems are not sorted")
					}
				}
			}
			// Evaluation is deterministic.
			again := p.Evaluate(req)
			if len(again.Problems) != len(res.Problems) {
				t.Fatalf("two evaluations disagree: %d vs %d problems", len(res.Problems), len(again.Problems))
			}
		}
	})
}

func decodeFuzzJSON(data []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v) == nil
}
