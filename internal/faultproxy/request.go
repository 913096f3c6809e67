package faultproxy

import (
	"net/http"
	"strings"
)

// Verbs of Kubernetes API requests, as kube-apiserver names them in its audit
// log and RBAC. Requests outside the resource API (/version, /openapi/v3,
// discovery) get the lower-case HTTP method as their verb.
const (
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
)

// RequestInfo is what the proxy reads from a request's method, path and
// query, the way kube-apiserver's request-info resolver reads them.
type RequestInfo struct {
	// Verb is one of the Verb constants, or the lower-case method outside the
	// resource API.
	Verb string
	// Resource is the plural resource name ("applications"), with the
	// subresource after a slash ("applications/status"); empty outside the
	// resource API.
	Resource  string
	Namespace string
	Name      string
}

// classify reads the RequestInfo of a request's method, path and watch
// query parameter.
func classify(method, path, watchParam string) RequestInfo {
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:] // /api/v1/...
	case len(parts) >= 3 && parts[0] == "apis":
		rest = parts[3:] // /apis/<group>/<version>/...
	}
	if len(rest) == 0 {
		return RequestInfo{Verb: strings.ToLower(method)}
	}

	legacyWatch := false
	if rest[0] == "watch" { // /api/v1/watch/... (deprecated watch paths)
		legacyWatch = true
		rest = rest[1:]
	}
	var info RequestInfo
	// namespaces/<ns>/<resource>... is a namespaced resource; namespaces and
	// namespaces/<name> are the namespaces resource itself.
	if len(rest) >= 3 && rest[0] == "namespaces" {
		info.Namespace = rest[1]
		rest = rest[2:]
	}
	if len(rest) == 0 {
		return RequestInfo{Verb: strings.ToLower(method)}
	}
	info.Resource = rest[0]
	if len(rest) >= 2 {
		info.Name = rest[1]
	}
	if len(rest) >= 3 {
		info.Resource += "/" + rest[2]
	}
	if info.Resource == "namespaces" && info.Name != "" && info.Namespace == "" {
		info.Namespace = info.Name
	}

	watch := legacyWatch || watchParam == "true" || watchParam == "1"
	switch method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watch:
			info.Verb = VerbWatch
		case info.Name == "":
			info.Verb = VerbList
		default:
			info.Verb = VerbGet
		}
	case http.MethodPost:
		info.Verb = VerbCreate
	case http.MethodPut:
		info.Verb = VerbUpdate
	case http.MethodPatch:
		info.Verb = VerbPatch
	case http.MethodDelete:
		if info.Name == "" {
			info.Verb = VerbDeleteCollection
		} else {
			info.Verb = VerbDelete
		}
	default:
		info.Verb = strings.ToLower(method)
	}
	return info
}
