package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Names shared by the seeded cluster and the generated configurations.
const (
	benchRepository = "bench"
	benchPackage    = "bench-app"
	grantResource   = "storageclasses" // AvailableClusterResource name used by the package schema
	grantDefault    = "standard"
)

var grantAvailable = []string{"standard", "fast", "archive"}

// layout spreads N applications over P package versions and NS namespaces.
type layout struct {
	N, P, NS int
}

func (l layout) versions() []string {
	out := make([]string, l.P)
	for i := range out {
		out[i] = fmt.Sprintf("v1.%d.0", i)
	}
	return out
}

func (l layout) namespaces() []string {
	out := make([]string, l.NS)
	for i := range out {
		out[i] = fmt.Sprintf("bench-%d", i+1)
	}
	return out
}

// app is one generated application.
type app struct {
	Address   string // resource name in the configuration
	Name      string // Application name (at most 24 characters)
	Namespace string
	Version   string
	Settings  map[string]any
}

func (l layout) apps() []app {
	vs, nss := l.versions(), l.namespaces()
	out := make([]app, l.N)
	for i := range out {
		out[i] = app{
			Address:   fmt.Sprintf("app_%04d", i),
			Name:      fmt.Sprintf("app-%04d", i),
			Namespace: nss[i%len(nss)],
			Version:   vs[i%len(vs)],
			Settings:  appSettings(i),
		}
	}
	return out
}

// appSettings returns about ten settings fields that vary with i, valid for
// the package in testdata/package: every other application leaves storageClass
// to the project default.
func appSettings(i int) map[string]any {
	levels := []string{"Debug", "Info", "Warn", "Error"}
	s := map[string]any{
		"replicas":         1 + i%3,
		"maxReplicas":      5 + i%5,
		"logLevel":         levels[i%len(levels)],
		"storageSize":      fmt.Sprintf("%dGi", 10+i%20),
		"retentionDays":    7 + i%14,
		"adminEmail":       fmt.Sprintf("owner-%d@example.com", i),
		"highAvailability": i%2 == 0,
		"metrics": map[string]any{
			"enabled":  true,
			"interval": fmt.Sprintf("%ds", 15+i%4*15),
		},
		"ingress": map[string]any{
			"enabled": i%3 == 0,
			"host":    fmt.Sprintf("app-%04d.example.com", i),
		},
	}
	if i%2 == 1 {
		s["storageClass"] = grantAvailable[i%len(grantAvailable)]
	}
	return s
}

// providerOptions are the provider block arguments of the generated configuration.
type providerOptions struct {
	ConfigPath string
	// Host, Token and CA replace ConfigPath when Host is set.
	Host, Token, CA string
	RequestTimeout  time.Duration // 0: not set
}

// deckhouseConfig renders a configuration with one deckhouse_application per app.
func deckhouseConfig(apps []app, po providerOptions) string {
	var b strings.Builder
	b.WriteString("terraform {\n  required_providers {\n    deckhouse = {\n      source = \"deckhouse/deckhouse\"\n    }\n  }\n}\n\n")
	b.WriteString("provider \"deckhouse\" {\n")
	if po.Host != "" {
		fmt.Fprintf(&b, "  host                   = %s\n", strconv.Quote(po.Host))
		fmt.Fprintf(&b, "  token                  = %s\n", strconv.Quote(po.Token))
		fmt.Fprintf(&b, "  cluster_ca_certificate = %s\n", strconv.Quote(po.CA))
	} else {
		fmt.Fprintf(&b, "  config_path = %s\n", strconv.Quote(po.ConfigPath))
	}
	if po.RequestTimeout > 0 {
		fmt.Fprintf(&b, "  request_timeout = %s\n", strconv.Quote(po.RequestTimeout.String()))
	}
	b.WriteString("}\n")
	for _, a := range apps {
		fmt.Fprintf(&b, "\nresource \"deckhouse_application\" %s {\n", strconv.Quote(a.Address))
		fmt.Fprintf(&b, "  name                    = %s\n", strconv.Quote(a.Name))
		fmt.Fprintf(&b, "  namespace               = %s\n", strconv.Quote(a.Namespace))
		fmt.Fprintf(&b, "  package_repository_name = %s\n", strconv.Quote(benchRepository))
		fmt.Fprintf(&b, "  package_name            = %s\n", strconv.Quote(benchPackage))
		fmt.Fprintf(&b, "  package_version         = %s\n", strconv.Quote(a.Version))
		b.WriteString("  settings = ")
		writeHCL(&b, a.Settings, 1)
		b.WriteString("\n}\n")
	}
	return b.String()
}

// floorConfig renders the floor: one terraform_data per app holding the same
// identity and settings, no provider at all.
func floorConfig(apps []app) string {
	var b strings.Builder
	for i, a := range apps {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "resource \"terraform_data\" %s {\n", strconv.Quote(a.Address))
		b.WriteString("  input = {\n")
		fmt.Fprintf(&b, "    name                    = %s\n", strconv.Quote(a.Name))
		fmt.Fprintf(&b, "    namespace               = %s\n", strconv.Quote(a.Namespace))
		fmt.Fprintf(&b, "    package_repository_name = %s\n", strconv.Quote(benchRepository))
		fmt.Fprintf(&b, "    package_name            = %s\n", strconv.Quote(benchPackage))
		fmt.Fprintf(&b, "    package_version         = %s\n", strconv.Quote(a.Version))
		b.WriteString("    settings = ")
		writeHCL(&b, a.Settings, 2)
		b.WriteString("\n  }\n}\n")
	}
	return b.String()
}

// writeHCL writes v as an HCL expression; object keys are sorted so output is stable.
func writeHCL(b *strings.Builder, v any, indent int) {
	switch x := v.(type) {
	case map[string]any:
		b.WriteString("{\n")
		for _, k := range slices.Sorted(maps.Keys(x)) {
			b.WriteString(strings.Repeat("  ", indent+1))
			b.WriteString(k)
			b.WriteString(" = ")
			writeHCL(b, x[k], indent+1)
			b.WriteString("\n")
		}
		b.WriteString(strings.Repeat("  ", indent))
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeHCL(b, e, indent)
		}
		b.WriteString("]")
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("writeHCL: unsupported type %T", v))
	}
}
