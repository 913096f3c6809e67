package engine

import "strings"

// OrphanResource is one kind of object DP deletes together with an
// application after its release is uninstalled: an entry of the values key
// orphanResources (normally the default of that property in
// openapi/values.yaml).
type OrphanResource struct {
	Kind string
	// Version is bare ("v1": every API group that serves that version) or
	// group-qualified ("batch/v1").
	Version string
}

// Group returns the API group of a group-qualified Version, "" for a bare
// one (which matches every group serving it).
func (o OrphanResource) Group() (group string, qualified bool) {
	g, _, found := strings.Cut(o.Version, "/")
	if !found {
		return "", false
	}
	return g, true
}

// APIVersion returns the version without its group.
func (o OrphanResource) APIVersion() string {
	if _, v, found := strings.Cut(o.Version, "/"); found {
		return v
	}
	return o.Version
}

// OrphanResources lists the kinds of orphan resources the package declares:
// the default of the property orphanResources of the values schema (after
// x-extend), as a list of {kind, version}. Entries without a string kind
// and version are skipped. nil without a values schema or without that
// default.
func (p *Package) OrphanResources() []OrphanResource {
	if p.values == nil {
		return nil
	}
	n := p.values.node.property("orphanResources")
	if n == nil || !n.hasDefault {
		return nil
	}
	list, _ := n.def.([]any)
	var out []OrphanResource
	for _, e := range list {
		m, _ := e.(map[string]any)
		kind, _ := m["kind"].(string)
		version, _ := m["version"].(string)
		if kind == "" || version == "" {
			continue
		}
		out = append(out, OrphanResource{Kind: kind, Version: version})
	}
	return out
}
