package application

import "github.com/deckhouse/terraform-provider-deckhouse/internal/provider/diagnostics"

// The values of sensitive_settings are kept out of every text the resource
// emits by diagnostics.Redactor.

type redactor = diagnostics.Redactor

const redactedMarker = diagnostics.RedactedMarker

func newRedactor(docs ...any) *redactor { return diagnostics.NewRedactor(docs...) }
