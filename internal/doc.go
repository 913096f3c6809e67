// Package internal holds no code: its tests check the module's structure
// against CONTRIBUTING.md (who may import whom, the layout table, and a doc
// comment in each package's doc.go).
package internal
