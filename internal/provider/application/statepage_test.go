package application

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The resource page says what the state holds and why, attribute by
// attribute ("What the state holds"): its table names every attribute of
// the schema, and nothing else.
func TestResourcePage_WhatTheStateHoldsNamesEveryAttribute(t *testing.T) {
	raw, err := os.ReadFile("../../../templates/resources/application.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	start := strings.Index(page, "## What the state holds")
	if start < 0 {
		t.Fatal(`the resource page has no section "What the state holds"`)
	}
	section := page[start+len("## What the state holds"):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	named := map[string]bool{}
	code := regexp.MustCompile("`([a-z_]+)(?:\\.[a-z_]+)*`")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(strings.TrimPrefix(line, "|"), "|", 2)[0]
		for _, m := range code.FindAllStringSubmatch(first, -1) {
			named[m[1]] = true
		}
	}
	for _, n := range attributeNames {
		if !named[n] {
			t.Errorf("attribute %s is not in the table of \"What the state holds\"", n)
		}
		delete(named, n)
	}
	for n := range named {
		t.Errorf("the table of \"What the state holds\" names %s, which the schema does not have", n)
	}
}
