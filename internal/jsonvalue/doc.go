// Package jsonvalue owns the JSON data model the engine and the provider
// share: what a document is in Go (Normalize), how numbers are read, the
// name of a value's JSON type (TypeName), deep equality (Equal, EqualKnown)
// and the one encoding of a document (Canonical, Decode). It imports the
// standard library only.
//
// A document is nil, a string, a bool, an int64 or a float64 (numbers),
// a map[string]any or a []any of documents, or Unknown (a value known only
// at apply). A number is read as the Kubernetes API machinery reads it
// (k8s.io/apimachinery/pkg/util/json): an integer literal that fits is an
// int64, any other number a float64. So the cluster and the engine read the
// same bytes as the same values, and an integer keeps every digit. The
// canonical encoding does not depend on the choice: encoding/json writes an
// integral float64 below 1e21 with integer digits, so a document has one
// encoding whichever way its numbers came.
package jsonvalue
