// Package diagnostics turns the engine's findings (problems, checks skipped
// because of unknown values, destructive switches) into framework diagnostics
// that point at the attribute path and never print a settings value.
package diagnostics
