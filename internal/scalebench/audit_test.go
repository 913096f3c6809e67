package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

const auditSample = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","requestURI":"/apis/deckhouse.io/v1alpha1/applicationpackageversions/bench-bench-app-v1.0.0","verb":"get","user":{"username":"admin"},"userAgent":"terraform-provider-deckhouse/v0.0.0 (linux/amd64) kubernetes/$Format","objectRef":{"resource":"applicationpackageversions","name":"bench-bench-app-v1.0.0","apiGroup":"deckhouse.io","apiVersion":"v1alpha1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2025-01-01T10:00:01.000000Z","stageTimestamp":"2025-01-01T10:00:01.002000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseStarted","requestURI":"/apis/deckhouse.io/v1alpha1/namespaces/bench-1/applications?watch=true","verb":"watch","user":{"username":"admin"},"userAgent":"terraform-provider-deckhouse/v0.0.0","objectRef":{"resource":"applications","namespace":"bench-1","apiGroup":"deckhouse.io"},"requestReceivedTimestamp":"2025-01-01T10:00:01.500000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","requestURI":"/apis/deckhouse.io/v1alpha1/namespaces/bench-1/applications?watch=true","verb":"watch","user":{"username":"admin"},"userAgent":"terraform-provider-deckhouse/v0.0.0","objectRef":{"resource":"applications","namespace":"bench-1","apiGroup":"deckhouse.io"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2025-01-01T10:00:01.500000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","requestURI":"/apis/deckhouse.io/v1alpha1/applicationpackageversions/bench-bench-app-v1.0.0","verb":"get","userAgent":"Terraform-Provider-Deckhouse/1.0","objectRef":{"resource":"applicationpackageversions","name":"bench-bench-app-v1.0.0"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2025-01-01T10:00:02.000000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","requestURI":"/apis/deckhouse.io/v1alpha1/namespaces/bench-1/applications/app-0001/status","verb":"patch","userAgent":"deckhouse-local-controller","objectRef":{"resource":"applications","subresource":"status","namespace":"bench-1","name":"app-0001"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2025-01-01T10:00:02.000000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","requestURI":"/apis/deckhouse.io/v1alpha1/namespaces/bench-1/applications/gone","verb":"get","userAgent":"terraform-provider-deckhouse/v0.0.0","objectRef":{"resource":"applications","namespace":"bench-1","name":"gone"},"responseStatus":{"code":404},"requestReceivedTimestamp":"2025-01-01T10:00:03.000000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","requestURI":"/openapi/v3?timeout=32s","verb":"get","userAgent":"terraform-provider-deckhouse/v0.0.0","responseStatus":{"code":200},"requestReceivedTimestamp":"2025-01-01T10:00:03.500000Z"}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","requestURI":"/api","verb":"get","userAgent":"terraform-provider-deckhouse/v0.0.0","responseStatus":{"code":200},"requestReceivedTimestamp":"2025-01-01T10:09:00.000000Z"}
not json at all
`

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestAudit_CountsOnlyCompletedRequestsOfTheClientInTheWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		filter    auditFilter
		total     int
		breakdown map[string]int
	}{
		{
			name:   "provider in window, prefix case-insensitive, watch counted once",
			filter: auditFilter{From: at("2025-01-01T10:00:00Z"), To: at("2025-01-01T10:05:00Z"), UserAgentPrefix: "terraform-provider-deckhouse"},
			total:  5,
			breakdown: map[string]int{
				"get applicationpackageversions": 2,
				"watch applications":             1,
				"get applications":               1,
				"get /openapi/v3":                1,
			},
		},
		{
			name:      "other clients only",
			filter:    auditFilter{From: at("2025-01-01T10:00:00Z"), To: at("2025-01-01T10:05:00Z"), UserAgentPrefix: "terraform-provider-deckhouse", Exclude: true},
			total:     1,
			breakdown: map[string]int{"patch applications/status": 1},
		},
		{
			name:      "window excludes earlier and later events",
			filter:    auditFilter{From: at("2025-01-01T10:00:01.9Z"), To: at("2025-01-01T10:00:02.1Z"), UserAgentPrefix: "terraform-provider-deckhouse"},
			total:     1,
			breakdown: map[string]int{"get applicationpackageversions": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := countAudit(strings.NewReader(auditSample), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if c.Total != tt.total {
				t.Errorf("total = %d, want %d (%s)", c.Total, tt.total, c.Breakdown())
			}
			for k, want := range tt.breakdown {
				if got := c.ByVerbResource[k]; got != want {
					t.Errorf("%s = %d, want %d", k, got, want)
				}
			}
		})
	}
}

func TestAudit_GetsPerObjectProveEachVersionReadOnce(t *testing.T) {
	t.Parallel()
	c, err := countAudit(strings.NewReader(auditSample), auditFilter{From: at("2025-01-01T10:00:00Z"), To: at("2025-01-01T10:05:00Z"), UserAgentPrefix: "terraform-provider-deckhouse"})
	if err != nil {
		t.Fatal(err)
	}
	most, distinct := c.MaxGetsPerObject("applicationpackageversions")
	if most != 2 || distinct != 1 {
		t.Errorf("most, distinct = %d, %d; want 2, 1", most, distinct)
	}
	if got := c.Verb("get", "applications"); got != 1 {
		t.Errorf("gets of applications = %d, want 1", got)
	}
	if c.Errors[404] != 1 {
		t.Errorf("404s = %d, want 1", c.Errors[404])
	}
}

// A request that repeats the verb and URI of one answered 429 or 5xx is a
// retry; a repeat after a success or a 404 is not.
func TestAudit_CountsRetriesAfterThrottlingAndServerErrors(t *testing.T) {
	t.Parallel()
	ev := func(verb, uri string, code int, sec int) string {
		return `{"stage":"ResponseComplete","verb":"` + verb + `","requestURI":"` + uri + `","userAgent":"terraform-provider-deckhouse/1",` +
			`"objectRef":{"resource":"applications","namespace":"bench-1","name":"a"},"responseStatus":{"code":` + strconv.Itoa(code) + `},` +
			`"requestReceivedTimestamp":"2025-01-01T10:00:0` + strconv.Itoa(sec) + `Z"}`
	}
	log := strings.Join([]string{
		ev("patch", "/a", 429, 1), ev("patch", "/a", 503, 2), ev("patch", "/a", 200, 3), // two retries
		ev("get", "/a", 200, 4), ev("get", "/a", 404, 5), ev("get", "/a", 200, 6), // none
	}, "\n")
	c, err := countAudit(strings.NewReader(log), auditFilter{From: at("2025-01-01T10:00:00Z"), To: at("2025-01-01T10:01:00Z"), UserAgentPrefix: "terraform-provider-deckhouse"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Retries != 2 || c.Throttled() != 1 || c.ServerErrors() != 1 {
		t.Fatalf("retries %d, 429 %d, 5xx %d; want 2, 1, 1", c.Retries, c.Throttled(), c.ServerErrors())
	}
}
