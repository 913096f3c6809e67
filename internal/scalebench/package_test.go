package main

import (
	"testing"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/engine"
)

func TestBenchPackage_PassesVerifyAndAcceptsEveryGeneratedApplication(t *testing.T) {
	t.Parallel()
	pkg, err := engine.LoadDir("testdata/package")
	if err != nil {
		t.Fatal(err)
	}
	findings, err := engine.VerifyDir("testdata/package")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("verify: %s %s %s: %s", f.Severity, f.File, f.SchemaPath, f.Message)
	}
	catalog := engine.Catalog{grantResource: {Default: grantDefault, Available: grantAvailable}}
	for _, a := range (layout{N: 30, P: 10, NS: 5}).apps() {
		res := pkg.Evaluate(engine.Request{Settings: a.Settings, Catalog: catalog})
		for _, p := range res.Problems {
			t.Errorf("%s: %s", a.Name, p)
		}
		if sc, _ := res.Effective["storageClass"].(string); sc == "" {
			t.Errorf("%s: storageClass not defaulted from the catalog", a.Name)
		}
	}
}

func TestBenchPackage_CELRuleRejectsReplicasAboveMax(t *testing.T) {
	t.Parallel()
	pkg, err := engine.LoadDir("testdata/package")
	if err != nil {
		t.Fatal(err)
	}
	res := pkg.Evaluate(engine.Request{Settings: map[string]any{"replicas": 6, "maxReplicas": 5}})
	if len(res.Problems) != 1 || res.Problems[0].Kind != engine.KindCEL {
		t.Fatalf("problems %v, want one CEL problem", res.Problems)
	}
}
