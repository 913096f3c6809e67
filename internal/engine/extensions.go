package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is the one table of DP's x-deckhouse-* extensions, as
// apiextensions-apiserver declares every x-kubernetes-* extension as a field
// of one struct (JSONSchemaProps) and checks them in one place. The publish
// filter (publishedKeys), the loader's checks (checkLoadExtensions), verify's
// known keywords and value checks (verifier.extensions) derive from it, and
// the compatibility page's list of extensions is checked against it.
// TestExtensions_EveryKeywordIsInTheTableAndHandled names every place a
// keyword is missing from.

// The names of DP's extensions.
const (
	extGrantable           = "x-deckhouse-grantable-resource"
	extValidations         = "x-deckhouse-validations"
	extImmutable           = "x-deckhouse-immutable"
	extUIAdvanced          = "x-deckhouse-ui-advanced"
	extUIOrder             = "x-deckhouse-ui-order"
	extUIGroup             = "x-deckhouse-ui-group"
	extUIValidationMessage = "x-deckhouse-ui-validation-message"
	extResourceName        = "x-deckhouse-ui-resource-name"
	extEnumSwitch          = "x-deckhouse-enum-switch-settings"
)

// extensionPrefix starts the name of every DP extension.
const extensionPrefix = "x-deckhouse-"

// extension is what the engine knows of one DP extension.
type extension struct {
	name string
	// decode is how DP's typed decode (ParsePackageSchemas) reads the value;
	// pubDropped when DP's struct has no field for it (not published).
	decode pubKind
	// where says where the extension may appear and counts (docs).
	where string
	// value says what its value is (docs).
	value string
	// does says what load and evaluation do with it (docs).
	does string
	// check returns what is wrong with a value (msg "" when nothing) and
	// where below the key (at, a pointer suffix); site says where the node
	// is. Verify reports it as an extensions error; the loader refuses it
	// too when loads is set.
	check func(val any, site extSite) (at, msg string)
	loads bool
}

// extSite is where a node carrying an extension sits in its schema.
type extSite struct {
	node  map[string]any
	field Path // the property names from the root
	// alongProps: the node is a field reached from the root through
	// properties only (where DP collects grant bindings).
	alongProps bool
}

// pubDropped marks an extension DP's typed decode drops.
const pubDropped pubKind = -1

// extensions is the table, in the order of the docs.
var extensions = []extension{
	{
		name: extValidations, decode: pubValidations,
		where: "any schema of settings.yaml and values.yaml",
		value: "list of `{expression, message}` (`messageExpression`, `reason`, `fieldPath` accepted)",
		does:  "compiled at load (a rule that does not compile refuses the package); run on every evaluation, `oldSelf` rules only on an update that keeps the installed version",
		check: checkRules,
	},
	{
		name: extImmutable, decode: pubFlag,
		where: "any schema of settings.yaml",
		value: "`true` (`false` is no mark)",
		does:  "on update, the marked value is compared whole with the applied configuration",
		check: checkBool,
	},
	{
		name: extGrantable, decode: pubString, loads: true,
		where: "a field of `type: string`, reached from the root through `properties` (elsewhere DP ignores it)",
		value: "the non-empty name of an AvailableClusterResource",
		does:  "the project default fills the field; a given value is checked against the catalog; an empty name or a field whose type has no `string` refuses the package",
		check: checkGrantValue,
	},
	{
		name: extEnumSwitch, decode: pubSwitches,
		where: "a `oneOf` branch with an enum-constrained field",
		value: "list of `{to, impact, messages}`",
		does:  "on update, a switch to a value of `to` with `impact: destructive` needs `allow_destructive_settings_switch`",
		check: checkSwitches,
	},
	{
		name: extUIValidationMessage, decode: pubString,
		where: "any schema",
		value: "string",
		does:  "replaces the schema's error text for that field",
		check: checkString,
	},
	{
		name: extResourceName, decode: pubResourceName, loads: true,
		where: "a field of `type: string`",
		value: "`{apiVersion, kind, labelSelector?}`",
		does:  "form field; the plan warns when the named object is missing from the Application's namespace",
		check: checkResourceName,
	},
	{
		name: extUIAdvanced, decode: pubFlag,
		where: "top-level fields of settings.yaml (the form reads it nowhere else)",
		value: "`true`",
		does:  "form field only",
		check: checkBool,
	},
	{
		name: extUIOrder, decode: pubInt,
		where: "fields of settings.yaml",
		value: "integer",
		does:  "form field order only",
		check: checkInteger,
	},
	{
		name: extUIGroup, decode: pubString,
		where: "fields of settings.yaml",
		value: "string",
		does:  "form group only",
		check: checkString,
	},
}

// extensionNamed returns the table's entry of name.
func extensionNamed(name string) (extension, bool) {
	for _, e := range extensions {
		if e.name == name {
			return e, true
		}
	}
	return extension{}, false
}

// closestExtension is the known extension name nearest to name, for an
// unknown key ("" when none is near).
func closestExtension(name string) string {
	names := make(map[string]any, len(extensions))
	for _, e := range extensions {
		names[e.name] = nil
	}
	return closestName(name, names)
}

func checkBool(val any, _ extSite) (at, msg string) {
	if _, ok := val.(bool); !ok {
		return "", "must be a boolean"
	}
	return "", ""
}

func checkString(val any, _ extSite) (at, msg string) {
	if _, ok := val.(string); !ok {
		return "", "must be a string"
	}
	return "", ""
}

func checkInteger(val any, _ extSite) (at, msg string) {
	if !isInteger(val) {
		return "", "must be an integer"
	}
	return "", ""
}

func checkRules(val any, _ extSite) (at, msg string) {
	l, ok := val.([]any)
	if !ok {
		return "", "must be a list of {expression, message}"
	}
	for i, item := range l {
		m, _ := item.(map[string]any)
		e, _ := m["expression"].(string)
		text, _ := m["message"].(string)
		if e == "" || text == "" {
			return "/" + strconv.Itoa(i), "a validation rule must be an object with non-empty string expression and message"
		}
	}
	return "", ""
}

func checkSwitches(val any, _ extSite) (at, msg string) {
	l, ok := val.([]any)
	if !ok {
		return "", "must be a list of {to, impact, messages}"
	}
	for i, item := range l {
		if _, ok := item.(map[string]any); !ok {
			return "/" + strconv.Itoa(i), "a switch item must be an object {to, impact, messages}"
		}
	}
	return "", ""
}

// checkGrantValue is DP's rule (grants.go, collect grant refs): a string
// anywhere; on a field DP collects bindings from, a non-empty name on a
// field whose type includes string.
func checkGrantValue(val any, s extSite) (at, msg string) {
	name, isStr := val.(string)
	switch {
	case !isStr:
		return "", fmt.Sprintf("must be a non-empty string naming the resource (for example storageclasses), got %s", describeValue(val))
	case !s.alongProps:
		return "", ""
	case name == "":
		return "", fmt.Sprintf("field %q: %s requires a non-empty value (must be a non-empty string naming the resource, for example storageclasses)", s.field.String(), extGrantable)
	case !hasType(s.node, "string"):
		return "", fmt.Sprintf("field %q: %s is only supported on 'type: string' fields (x-deckhouse-grantable-resource is allowed only on a field of type: string, this field has %s)", s.field.String(), extGrantable, describeType(s.node))
	}
	return "", ""
}

func checkResourceName(val any, _ extSite) (at, msg string) {
	m, isMap := val.(map[string]any)
	av, _ := m["apiVersion"].(string)
	kd, _ := m["kind"].(string)
	if !isMap || av == "" || kd == "" {
		return "", "must be an object with string apiVersion and kind (and an optional labelSelector)"
	}
	if ls, ok := m["labelSelector"]; ok && ls != nil {
		if _, ok := ls.(map[string]any); !ok {
			return "/labelSelector", "labelSelector must be a label selector object"
		}
	}
	return "", ""
}

// extensionMessage is the text of a check's finding about key: msg, which
// names the key unless it is about a part of the value (at) or a field.
func extensionMessage(key, at, msg string) string {
	if at != "" || strings.HasPrefix(msg, "field ") {
		return msg
	}
	return key + " " + msg
}
