package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// auditEvent holds the fields of a kube-apiserver audit event (audit.k8s.io/v1,
// one JSON object per line) that the benchmark counts by.
type auditEvent struct {
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	RequestURI string `json:"requestURI"`
	Received   string `json:"requestReceivedTimestamp"`
	Response   *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// resource names what a request addressed: "applications", "applications/status",
// or the request path for non-resource requests (discovery, OpenAPI).
func (e *auditEvent) resource() string {
	if e.ObjectRef == nil || e.ObjectRef.Resource == "" {
		u, _, _ := strings.Cut(e.RequestURI, "?")
		return u
	}
	if e.ObjectRef.Subresource != "" {
		return e.ObjectRef.Resource + "/" + e.ObjectRef.Subresource
	}
	return e.ObjectRef.Resource
}

// auditCounts is what one client did during one phase.
type auditCounts struct {
	Total int
	// ByVerbResource counts requests by "verb resource", e.g. "get applicationpackageversions".
	ByVerbResource map[string]int
	// GetsByName counts GETs per "resource/namespace/name", to prove each object is read once.
	GetsByName map[string]int
	// Errors counts responses with a status code of 400 or more (404s included).
	Errors map[int]int
	// Retries counts requests that repeat the verb and URI of a request
	// answered 429 or 5xx before (by client-go or the provider).
	Retries int
}

// Throttled is the number of 429 answers.
func (c auditCounts) Throttled() int { return c.Errors[429] }

// ServerErrors is the number of 5xx answers.
func (c auditCounts) ServerErrors() int {
	n := 0
	for code, v := range c.Errors {
		if code >= 500 {
			n += v
		}
	}
	return n
}

func newAuditCounts() auditCounts {
	return auditCounts{ByVerbResource: map[string]int{}, GetsByName: map[string]int{}, Errors: map[int]int{}}
}

// Verb sums requests with the given verb, over resources whose name starts with
// resourcePrefix ("" for all).
func (c auditCounts) Verb(verb, resourcePrefix string) int {
	n := 0
	for k, v := range c.ByVerbResource {
		kv, kr, _ := strings.Cut(k, " ")
		if kv == verb && strings.HasPrefix(kr, resourcePrefix) {
			n += v
		}
	}
	return n
}

// MaxGetsPerObject is the highest number of GETs of a single object of the
// given resource, and how many distinct objects were read.
func (c auditCounts) MaxGetsPerObject(resource string) (most, distinct int) {
	for k, v := range c.GetsByName {
		if strings.HasPrefix(k, resource+"/") {
			distinct++
			most = max(most, v)
		}
	}
	return most, distinct
}

// Breakdown renders the counts as "verb resource=n" items, largest first.
func (c auditCounts) Breakdown() string {
	keys := slices.SortedFunc(maps.Keys(c.ByVerbResource), func(a, b string) int {
		return cmp.Or(cmp.Compare(c.ByVerbResource[b], c.ByVerbResource[a]), cmp.Compare(a, b))
	})
	if len(keys) == 0 {
		return "none"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, c.ByVerbResource[k])
	}
	return strings.Join(parts, ", ")
}

// auditFilter selects one client's completed requests within a time window.
type auditFilter struct {
	From, To time.Time
	// UserAgentPrefix selects the client (case-insensitive prefix of the user agent).
	UserAgentPrefix string
	// Exclude inverts the user agent test: count every other client.
	Exclude bool
}

func (f auditFilter) match(e *auditEvent) bool {
	if e.Stage != "ResponseComplete" && e.Stage != "Panic" {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, e.Received)
	if err != nil || t.Before(f.From) || t.After(f.To) {
		return false
	}
	has := strings.HasPrefix(strings.ToLower(e.UserAgent), strings.ToLower(f.UserAgentPrefix))
	return has != f.Exclude
}

// countAudit reads an audit log (JSON lines) and counts the events that match f.
// Lines that are not JSON audit events are skipped.
func countAudit(r io.Reader, f auditFilter) (auditCounts, error) {
	c := newAuditCounts()
	failedBefore := map[string]int{} // verb and URI -> 429/5xx answers not retried yet
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e auditEvent
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		if !f.match(&e) {
			continue
		}
		c.Total++
		res := e.resource()
		c.ByVerbResource[e.Verb+" "+res]++
		if e.Verb == "get" && e.ObjectRef != nil && e.ObjectRef.Name != "" {
			c.GetsByName[res+"/"+e.ObjectRef.Namespace+"/"+e.ObjectRef.Name]++
		}
		key := e.Verb + " " + e.RequestURI
		if failedBefore[key] > 0 {
			failedBefore[key]--
			c.Retries++
		}
		if e.Response != nil && e.Response.Code >= 400 {
			c.Errors[e.Response.Code]++
			if e.Response.Code == 429 || e.Response.Code >= 500 {
				failedBefore[key]++
			}
		}
	}
	return c, sc.Err()
}

// countAuditFile is countAudit on a file.
func countAuditFile(path string, f auditFilter) (auditCounts, error) {
	fh, err := os.Open(path)
	if err != nil {
		return auditCounts{}, err
	}
	defer fh.Close()
	return countAudit(fh, f)
}
