// Command mcp-conform checks an MCP server against the normative rules of the Model Context
// Protocol specification. See README.md, or run `mcp-conform help`.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/mcp-conform/mcp-conform/internal/cli"
)

// softMemoryLimit is the Go heap's soft limit unless GOMEMLIMIT is set: the garbage collector
// works harder near it instead of letting the heap double (a run's live data is the compiled
// schemas and the recorded frames). It is soft, so a bigger run still completes; measured by
// bench/run.sh, it keeps a reference run under 100 MB for about 0.2 s more CPU.
const softMemoryLimit = 80 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	code := cli.Main(os.Args[1:], os.Stdout, os.Stderr)
	if path := os.Getenv(selfUsageEnv); path != "" {
		writeSelfUsage(path)
	}
	os.Exit(code)
}

// selfUsageEnv names a file to which, when set, mcp-conform writes its own resource use at exit
// as one line "PEAK_RSS_KB USER_S SYSTEM_S": this process only, the server processes it started
// excluded (a parent's rusage would count its children's peak too). bench/run.sh reads it.
const selfUsageEnv = "MCP_CONFORM_SELF_USAGE"

func writeSelfUsage(path string) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return
	}
	secs := func(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }
	line := fmt.Sprintf("%d %.3f %.3f\n", ru.Maxrss, secs(ru.Utime), secs(ru.Stime))
	_ = os.WriteFile(path, []byte(line), 0o644)
}
