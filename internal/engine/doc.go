// Package engine is Deckhouse Platform's settings semantics as a pure
// library: it loads a package's OpenAPI schemas, validates, defaults and
// checks Application settings the way DP does, and publishes the schemas the
// way DP publishes them. It does no I/O beyond reading the package files it
// is given, and imports nothing from Terraform or Kubernetes clients.
//
// # Schema pipeline (LoadDir, LoadPublished)
//
//  1. Load: openapi/settings.yaml, or openapi/config-values.yaml only when
//     settings.yaml is absent; optional openapi/values.yaml; doc-ru-*.yaml
//     play no part (only VerifyDir reads them). LoadDir (and VerifyDir) read
//     the folder through os.Root: a symbolic link that leads outside it is
//     refused with an error naming the file. YAML is read as DP reads it
//     (sigs.k8s.io/yaml on go-yaml v2, YAML 1.1): unquoted y/n, yes/no,
//     on/off (and their Capitalized and UPPER forms) are booleans; a key
//     that is a boolean or a number becomes its JSON text ("true", "1");
//     a later duplicate key replaces the earlier one, `<<` merge keys apply
//     in document order (the first mapping of a `<<` list wins); anchors
//     and aliases work; numbers become int64 (integral) or float64; each
//     file is limited to 1 MiB, nesting to maxDepth levels and alias
//     expansion to maxAliasNodes nodes. Published schemas are JSON or YAML.
//  2. $ref: local references (#/definitions/..., any #/ pointer) are inlined;
//     keywords beside a $ref are laid over the target (so an x-deckhouse-*
//     extension next to a $ref is kept). A recursive reference (a
//     definition that refers to itself, directly or through others) stays
//     in place, as go-openapi leaves it in DP: the compiler and the schema
//     nodes resolve it inside the root (the node graph then has a cycle, and
//     every walk over it is driven by the value or enters a node once per
//     path). A cycle of nothing but $refs, dangling and non-local
//     references are errors.
//  3. Tolerate: keyword values that DP (go-openapi's spec types) loads are
//     rewritten into what DP evaluates, so a package DP loads loads here: a
//     standard keyword set to null is absent (`properties:` with nothing
//     under it is no properties); `type: bool` (not a JSON Schema type)
//     rejects every value as go-openapi does; `items: strings` is ignored;
//     an additionalProperties that is neither a boolean nor a schema allows
//     anything. VerifyDir reports these, and duplicate keys, as warnings. What
//     go-openapi refuses (`minimum: one`, `required: a`, `type: 5`) stays a
//     load error.
//  4. x-extend: a values schema with `x-extend: {schema: settings.yaml}` gets
//     from the settings schema actually used only what DP merges: properties,
//     patternProperties and definitions (unioned, values win per name), root
//     x-* extensions (unioned, values win), required (a de-duplicated union)
//     and title/description (the settings' when values has none). Other
//     settings-root keywords (type, oneOf, anyOf, allOf, not, enum,
//     minProperties, ...) do not reach the values schema.
//  5. Close: `additionalProperties: false` is added to every object schema
//     that does not set additionalProperties, through properties, items,
//     additionalProperties/patternProperties sub-schemas and definitions,
//     but not into oneOf/anyOf/allOf/not branches: a field declared only in
//     a branch is rejected, branches only restrict combinations. (The public
//     DP code is narrower; see the compatibility page.)
//  6. Compile: JSON Schema draft 4 as in OpenAPI v3.0 with
//     santhosh-tekuri/jsonschema. `$schema` is ignored, `nullable: true`
//     admits null, a null value is checked only against type/nullable and
//     enum and never matches an enum, only DP's formats are asserted
//     (duration in Go style such as 1h30m), other formats are ignored. As
//     in go-openapi's object validator, a name in `required` whose property
//     declares a non-null default is satisfied when absent. Then the tree
//     is converted once into a typed schemaNode (schema_node.go): children
//     by property, pattern, additionalProperties and items, defaults,
//     extensions (immutable, grantable, enum switches) and the compiled
//     x-deckhouse-validations rules (cel_compile.go). The semantic walkers
//     (CEL runs in cel_run.go, defaults, grants, immutability, switches,
//     fields, partial evaluation) follow the node, each carrying its state
//     in a small struct; only the schema validator reads the untyped tree.
//
// Compiled packages are immutable, safe for concurrent use, and cached by a
// hash of their input bytes: loading the same bytes twice returns the same
// *Package. Every schema error is a *SchemaError naming the file, the place
// inside the schema and what is wrong.
//
// Publishing keeps the loaded schema as written ($ref and definitions kept,
// not closed, not merged) with only standard keywords and the x-deckhouse-*
// extensions DP publishes, as canonical JSON (sorted keys).
//
// # DP's extensions (extensions.go)
//
// One table lists every x-deckhouse-* extension: how DP's typed decode
// reads it (and so whether publishing keeps it), where it may appear, the
// check of its value, and its line in the docs. The publish filter, the
// loader's checks, VerifyDir's known keywords and the compatibility page's list
// derive from it; TestExtensions_EveryKeywordIsInTheTableAndHandled names
// every place a keyword is missing from.
//
// # Evaluation pipeline (Evaluate)
//
// The order is a decision and follows DP, not kube-apiserver (which defaults
// before validating): the raw settings are validated against the schema,
// then checked by the CEL rules, both before defaults (a rule sees only what
// the user wrote; but, as in DP's validator, go-openapi, an absent property
// listed in required that declares a non-null default counts as present,
// since the default will create it); then the effective settings are built
// (settings.yaml defaults, then project grant defaults where a bound field
// is still absent or "", creating missing parents, then user settings;
// `default: null` is no default; bindings count only along properties) and
// grants checked; then, on update, oldSelf rules (oldSelf = the previous
// raw settings, Request.PreviousRaw; skipped, and not listed, when the
// update changes the package version, as DP skips them), immutability (both sides with schema
// defaults, unset grant paths dropped from the old side, a marked node
// compared whole) and enum switches; finally values (values.yaml defaults
// and hook values, validated against the values schema). A panic inside
// Evaluate (a bug) becomes one problem naming the package, never a crash.
//
// Problems carry the path of the offending value as segments, a stable Kind
// and the keyword or rule violated, and are sorted. They never hold the
// offending value: settings may carry secrets, so a message names the field
// and the schema's side of the check ("must be at least 1000", "must be a
// valid uri: not an absolute URI"), and CEL evaluation errors are rendered as
// fixed texts, never cel-go's (which can embed values). Texts the package
// author wrote (a rule's message, x-deckhouse-ui-validation-message) are
// kept. An undeclared field carries the closest declared sibling name as
// Problem.Suggestion.
//
// # Partial evaluation (Unknown)
//
// A value not known yet (Unknown{}) may stand anywhere in the settings, the
// previous settings and the hook values. It is "any value": every check that
// does not depend on it runs as usual; every check that does is listed in
// Result.Skipped with the unknown path it depends on. The walkers treat
// Unknown{} as opaque (no default fills it, no grant replaces it, no
// comparison is made with it); the schema validator sees null in its place
// and the problems that depend on it are dropped; which checks were skipped
// is found by following the schema along each unknown path (unknown.go).
// Documents without an Unknown take none of these paths.
package engine
