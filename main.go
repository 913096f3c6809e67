package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/deckhouse/terraform-provider-deckhouse/internal/provider"
)

// version and commit are set at build time with
// -ldflags "-X main.version=... -X main.commit=..." (GNUmakefile, .goreleaser.yml).
// Without commit, the VCS revision the go command embeds is used, if any.
var (
	version = "dev"
	commit  = ""
)

// servedVersion is the version the provider reports (and puts in its
// User-Agent): version, with the commit as SemVer build metadata when known,
// e.g. 1.2.0+3f2a9c1.
func servedVersion(version, commit string, info *debug.BuildInfo) string {
	if commit == "" && info != nil {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	if commit == "" || commit == "none" || strings.Contains(version, "+") {
		return version
	}
	if len(commit) > 7 {
		commit = commit[:7]
	}
	return version + "+" + commit
}

// cpuProfileEnv names a file that receives a pprof CPU profile of the whole
// provider process, written when the process exits gracefully; "%p" in the
// name is replaced by the process id (the CLI may start the provider more than
// once per command). For development only.
const cpuProfileEnv = "DECKHOUSE_PROVIDER_CPUPROFILE"

// memProfileEnv names a file that receives a pprof heap profile when the
// process exits gracefully (after a garbage collection: inuse_* is what was
// still reachable, alloc_* everything allocated); "%p" as for cpuProfileEnv.
// For development only.
const memProfileEnv = "DECKHOUSE_PROVIDER_MEMPROFILE"

// profilePath expands "%p" in a profile file name to the process id.
func profilePath(p string) string {
	return strings.ReplaceAll(p, "%p", strconv.Itoa(os.Getpid()))
}

// logEnv lists the variables that turn on, or redirect, the logs of the
// CLI, the provider and the plugin SDK.
var logEnv = []string{
	"TF_LOG", "TF_LOG_PATH", "TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO",
	"TF_LOG_SDK_FRAMEWORK", "TF_ACC_LOG_PATH", providerLogEnv,
}

// providerLogEnv is the level of the provider's own log lines (tflog), which
// terraform-plugin-go reads as TF_LOG_PROVIDER_<the provider's type>.
const providerLogEnv = "TF_LOG_PROVIDER_DECKHOUSE"

// quietLogs turns off the logs of the plugin SDK and the provider's own
// when nobody asked for logs. Both write JSON lines to stderr at TRACE for
// every RPC, which the CLI reads, parses and then discards when TF_LOG is
// unset: with hundreds of resources that is a share of the provider's CPU
// time and of the CLI's.
func quietLogs() {
	for _, k := range logEnv {
		if os.Getenv(k) != "" {
			return
		}
	}
	for _, k := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", providerLogEnv} {
		_ = os.Setenv(k, "OFF")
	}
}

func main() {
	var debugger bool
	flag.BoolVar(&debugger, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	quietLogs()
	// The garbage collector keeps Go's defaults; GOGC and GOMEMLIMIT work as
	// usual. Measured with internal/scalebench at N = 1000: GOGC=400 alone
	// took the provider to 167 MB RSS, GOGC=400 with a 96 MiB soft limit to
	// 116 MB at the provider CPU time of the defaults, which stay at 87 MB.
	if err := run(debugger); err != nil {
		log.Fatal(err.Error())
	}
}

func run(debugger bool) error {
	if p := os.Getenv(memProfileEnv); p != "" {
		defer func() {
			f, err := os.Create(profilePath(p))
			if err != nil {
				log.Printf("%s: %v", memProfileEnv, err)
				return
			}
			defer f.Close()
			runtime.GC()
			if err := pprof.WriteHeapProfile(f); err != nil {
				log.Printf("%s: %v", memProfileEnv, err)
			}
		}()
	}
	if p := os.Getenv(cpuProfileEnv); p != "" {
		f, err := os.Create(profilePath(p))
		if err != nil {
			return fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
		defer pprof.StopCPUProfile()
	}
	var opts []tf6server.ServeOpt
	if debugger {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	info, _ := debug.ReadBuildInfo()
	return tf6server.Serve("registry.terraform.io/deckhouse/deckhouse", provider.ProtocolServer(servedVersion(version, commit, info)), opts...)
}
