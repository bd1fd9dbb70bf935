package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcp-conform/mcp-conform/reports"
)

// isTerminal reports whether w is an interactive terminal; tests replace it to pretend stdout
// or stderr is one.
var isTerminal = reports.IsTerminal

// console returns the console options for writing to w (see reports.DetectConsole), with
// isTerminal deciding whether w is a terminal.
func console(w io.Writer, noColor bool) reports.ConsoleOptions {
	return reports.NewConsoleOptions(isTerminal(w), noColor)
}

// The help texts of the subcommands, printed by --help above their flags.
const (
	runUsage = `Usage:
  mcp-conform run [flags] -- COMMAND [ARGS...]     test a stdio server (argv, no shell)
  mcp-conform run [flags] --url URL [--header 'Name: value']...
                                                   test a Streamable HTTP endpoint

Flags:
`
	demoUsage = `Usage:
  mcp-conform demo [flags]     run the suite on the built-in reference server (stdio and HTTP)

Flags:
`
	listUsage = `Usage:
  mcp-conform list [--format text|json]     every rule this build knows

Flags:
`
	reportUsage = `Usage:
  mcp-conform report RESULTS.json [flags]     re-render a saved run without rerunning it

Flags:
`
)

// parseFlags parses args into fs. It returns -1 when the command should go on; otherwise the
// exit code: 0 after printing help (the subcommand's usage lines, then its flags) on stdout for
// -h or --help, 2 after one line on stderr naming the flag that could not be parsed and where
// help is, instead of the flag package's error followed by every flag.
func parseFlags(fs *flag.FlagSet, args []string, help string, stdout, stderr io.Writer) int {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return -1
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, help)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return reports.ExitOK
	}
	return usageError(stderr, "%s: %v (see 'mcp-conform %s --help')", fs.Name(), err, fs.Name())
}
