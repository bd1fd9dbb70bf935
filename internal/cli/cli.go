// Package cli implements the mcp-conform command line: flag parsing, the subcommands run,
// list, version and demo, and the exit codes of DESIGN.md. Main never calls os.Exit, so the
// whole command is testable in process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/runner"
	"github.com/mcp-conform/mcp-conform/schemas"
)

// Build metadata, set with -ldflags "-X github.com/mcp-conform/mcp-conform/internal/cli.Version=..."
// by release builds; otherwise taken from the Go build info.
var (
	Version = ""
	Commit  = ""
)

const usage = `mcp-conform checks an MCP server against the Model Context Protocol specification.

Usage:
  mcp-conform run [flags] -- COMMAND [ARGS...]     test a stdio server (argv, no shell)
  mcp-conform run [flags] --url URL [--header 'Name: value']...
                                                   test a Streamable HTTP endpoint
  mcp-conform report RESULTS.json [--html F] [--junit F] [--sarif F] [--format text|json] [--baseline F] [--write-baseline F]
                                                   re-render a saved run without rerunning it
  mcp-conform diff OLD.json NEW.json [--format text|json|markdown] [--strict]
                                                   compare two saved runs; exit 1 on a regression
  mcp-conform list [--format text|json]            every rule this build knows
  mcp-conform demo [flags]                         run the suite on the built-in reference server
  mcp-conform version                              version, commit and schema pins

Exit codes: 0 no failures; 1 a fail (or a warn with --strict); 2 usage error;
3 the run could not be carried out or a check errored.
Run 'mcp-conform run -h' for the run flags.
`

// Main runs the command line args (without the program name), writing the chosen output format
// to stdout and progress and diagnostics to stderr, and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return reports.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr, nil)
	case "demo":
		return demoCmd(ctx, args[1:], stdout, stderr)
	case "list":
		return listCmd(args[1:], stdout, stderr)
	case "report":
		return reportCmd(args[1:], stdout, stderr)
	case "diff":
		return diffCmd(args[1:], stdout, stderr)
	case "version", "--version":
		return versionCmd(args[1:], stdout, stderr)
	case referenceServerCmd:
		return serveReference(ctx, args[1:], stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return reports.ExitOK
	}
	fmt.Fprintf(stderr, "mcp-conform: unknown command %q\n\n%s", args[0], usage)
	return reports.ExitUsage
}

// runOptions are the flags of `run` (and `demo`).
type runOptions struct {
	url            string
	transport      string
	headers        multiFlag
	revision       string
	startupTimeout time.Duration
	timeout        time.Duration
	quietWindow    time.Duration
	runTimeout     time.Duration
	maxFrame       int
	schemasDir     string
	out            string
	sarif          string
	format         string
	rules          multiFlag
	tags           string
	strict         bool
	concurrency    int
	baseline       string
	writeBaseline  string
	noColor        bool
	callTools      string
	fixtureMap     multiFlag

	// loaded is the parsed --baseline file.
	loaded *reports.Baseline
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func runFlags(name string, o *runOptions, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "", "Streamable HTTP endpoint to test (instead of a command after --)")
	fs.StringVar(&o.transport, "transport", "", "stdio, http (Streamable HTTP at --url) or sse (the HTTP+SSE transport of "+revisions.Oldest().ID+": --url is the SSE endpoint); default: stdio with a command, http with --url, falling back to sse when the server refuses a POSTed initialize with 400, 404 or 405 and a GET opens an SSE stream with an endpoint event")
	fs.Var(&o.headers, "header", "HTTP header 'Name: value' sent on every request (repeatable; values never written to reports)")
	fs.StringVar(&o.revision, "revision", "auto", "protocol revisions to test: auto (every one the server accepts), or a comma-separated list of "+strings.Join(revisions.IDs(), ", "))
	fs.DurationVar(&o.startupTimeout, "startup-timeout", 60*time.Second, "bound on a fresh server's first reply (cold go run, first npx)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "bound on every later request")
	fs.DurationVar(&o.quietWindow, "quiet-window", time.Second, "how long to wait before concluding nothing more arrives")
	fs.DurationVar(&o.runTimeout, "run-timeout", 15*time.Minute, "bound on the whole run")
	fs.IntVar(&o.maxFrame, "max-frame", 16<<20, "largest frame recorded whole, in bytes (longer ones are a violation)")
	fs.StringVar(&o.schemasDir, "schemas", "", "folder with <revision>/schema.json (default: $MCP_CONFORM_SCHEMAS, then the cache, then download)")
	fs.StringVar(&o.out, "out", "", "folder to write the reports into: results.json, report.html, junit.xml, results.sarif and badge.svg")
	fs.StringVar(&o.sarif, "sarif", "", "write a SARIF 2.1.0 log (GitHub code scanning) to this file")
	fs.StringVar(&o.format, "format", "text", "stdout format: text or json")
	fs.Var(&o.rules, "rule", "run only rules whose id starts with this prefix (repeatable)")
	fs.StringVar(&o.tags, "tags", "", "godog tag expression selecting scenarios (e.g. '@MUST && ~@transport:http')")
	fs.BoolVar(&o.strict, "strict", false, "count warn (SHOULD broken) as a failure")
	fs.IntVar(&o.concurrency, "concurrency", runner.DefaultConcurrency, fmt.Sprintf("scenarios run at once (1 to %d)", runner.MaxConcurrency))
	fs.StringVar(&o.baseline, "baseline", "", "YAML file of expected failures: listed failures become xfail; an entry that now passes fails the run as stale")
	fs.StringVar(&o.writeBaseline, "write-baseline", "", "write the run's failures (fail and warn) as a baseline YAML file")
	fs.BoolVar(&o.noColor, "no-color", false, "no colour on the console (also when NO_COLOR is set)")
	fs.StringVar(&o.callTools, "call-tools", client.CallFixtures, "tools the suite may call: fixtures (the official fixture names only), readonly (also tools annotated readOnlyHint), all")
	fs.Var(&o.fixtureMap, "fixture-map", "name=alias: the server's own name for a fixture tool, prompt or resource (repeatable)")
	return fs
}

// usageError reports a usage problem and returns exit code 2.
func usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "mcp-conform: "+format+"\n", a...)
	return reports.ExitUsage
}

// runCmd implements `run`. targetOverride, when non-nil, replaces the target the flags name
// (used by demo).
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer, override *runner.Config) int {
	var o runOptions
	fs := runFlags("run", &o, stderr)
	if code := parseFlags(fs, args, runUsage, stdout, stderr); code >= 0 {
		return code
	}
	cfg, code := o.config(fs.Args(), stderr, override)
	if code >= 0 {
		return code
	}
	return execute(ctx, cfg, o, stdout, stderr)
}

// config validates the flags and builds the run configuration; code is -1 when all is well.
func (o *runOptions) config(rest []string, stderr io.Writer, override *runner.Config) (runner.Config, int) {
	cfg := runner.Config{
		Revision: o.revision, StartupTimeout: o.startupTimeout, Timeout: o.timeout, QuietWindow: o.quietWindow,
		RunTimeout: o.runTimeout, MaxFrame: o.maxFrame, Rules: o.rules, Tags: o.tags, Concurrency: o.concurrency,
		Tool: toolInfo(),
	}
	if o.format != "text" && o.format != "json" {
		return cfg, usageError(stderr, "--format must be text or json, not %q", o.format)
	}
	if why := revisionListProblem(o.revision); why != "" {
		return cfg, usageError(stderr, "--revision must be auto or a comma-separated list of %s: %s", strings.Join(revisions.IDs(), ", "), why)
	}
	for name, d := range map[string]time.Duration{"--startup-timeout": o.startupTimeout, "--timeout": o.timeout, "--run-timeout": o.runTimeout} {
		if d <= 0 {
			return cfg, usageError(stderr, "%s must be positive", name)
		}
	}
	switch {
	case o.quietWindow <= 0:
		return cfg, usageError(stderr, "--quiet-window must be positive")
	case o.maxFrame < 1024:
		return cfg, usageError(stderr, "--max-frame must be at least 1024 bytes")
	case o.concurrency < 1 || o.concurrency > runner.MaxConcurrency:
		return cfg, usageError(stderr, "--concurrency must be from 1 to %d", runner.MaxConcurrency)
	}
	if err := client.ValidateCallTools(o.callTools); err != nil {
		return cfg, usageError(stderr, "%v", err)
	}
	cfg.CallTools = o.callTools
	fm, err := client.ValidateFixtureMap(o.fixtureMap)
	if err != nil {
		return cfg, usageError(stderr, "%v", err)
	}
	cfg.FixtureMap = fm
	if err := catalog.ValidateTags(o.tags); err != nil {
		return cfg, usageError(stderr, "%v", err)
	}
	ruleSet, err := catalog.Catalog()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return cfg, reports.ExitError
	}
	// Every filter must select something: a typo in one of several must not go unnoticed.
	for _, p := range o.rules {
		if strings.TrimSpace(p) == "" {
			return cfg, usageError(stderr, "--rule needs a rule id or prefix (e.g. MSG-014 or MSG-); `mcp-conform list` shows them")
		}
		if len(catalog.Select(ruleSet, []string{p}, "")) == 0 {
			return cfg, usageError(stderr, "--rule %q matches no rule (ids are upper case, e.g. MSG-014); `mcp-conform list` shows them", p)
		}
	}
	if o.tags != "" {
		for _, alt := range strings.Split(o.tags, ",") {
			if len(catalog.Select(ruleSet, o.rules, alt)) == 0 {
				return cfg, usageError(stderr, "--tags %q: %q selects no rule (tags look like @MUST or @rule:MSG-014)", o.tags, strings.TrimSpace(alt))
			}
		}
	}
	if dir := o.schemasDir; dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return cfg, usageError(stderr, "--schemas %s is not a folder (it must hold <revision>/schema.json)", dir)
		}
	} else if dir := os.Getenv(schemas.EnvSchemas); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return cfg, usageError(stderr, "%s=%s is not a folder (it must hold <revision>/schema.json)", schemas.EnvSchemas, dir)
		}
	}
	if o.out != "" {
		if err := checkWritable(o.out); err != nil {
			return cfg, usageError(stderr, "--out %s: %v", o.out, err)
		}
	}
	if code := checkOutputFiles(stderr, "--write-baseline", o.writeBaseline, "--sarif", o.sarif); code >= 0 {
		return cfg, code
	}
	if code := o.loadBaseline(ruleSet, stderr); code >= 0 {
		return cfg, code
	}
	header := http.Header{}
	for _, h := range o.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return cfg, usageError(stderr, "--header %q is not 'Name: value'", h)
		}
		if why := headerProblem(name, value); why != "" {
			return cfg, usageError(stderr, "--header %q: %s", h, why)
		}
		header.Add(name, strings.TrimSpace(value))
	}
	switch {
	case override != nil:
		cfg.Transport, cfg.Command, cfg.URL, cfg.Header = override.Transport, override.Command, override.URL, override.Header
		if len(rest) > 0 || o.url != "" || len(o.headers) > 0 {
			return cfg, usageError(stderr, "demo tests the built-in reference server: it takes no server command, --url or --header")
		}
	case o.url != "" && len(rest) > 0:
		return cfg, usageError(stderr, "give either --url or a command after --, not both")
	case o.url != "":
		if !strings.HasPrefix(o.url, "http://") && !strings.HasPrefix(o.url, "https://") {
			return cfg, usageError(stderr, "--url must be an http:// or https:// URL, not %q", o.url)
		}
		if why := urlProblem(o.url); why != "" {
			return cfg, usageError(stderr, "--url %q: %s", o.url, why)
		}
		cfg.Transport, cfg.URL, cfg.Header = harness.TransportHTTP, o.url, header
		switch o.transport {
		case "":
			cfg.SSEFallback = true
		case harness.TransportSSE:
			for _, rev := range strings.Split(o.revision, ",") {
				if rev := strings.TrimSpace(rev); rev != "auto" && revisions.IsModern(rev) { // auto: the handshake revisions the server accepts
					// The handshake revisions after it may be negotiated over it (a client
					// falling back keeps its protocol version); the modern era has no
					// initialize to do so.
					return cfg, usageError(stderr, "--transport sse (the HTTP+SSE transport of %s) cannot carry revision %s, which has no initialize", revisions.Oldest().ID, rev)
				}
			}
			cfg.Transport = o.transport
		case harness.TransportHTTP:
			cfg.Transport = o.transport
		default:
			return cfg, usageError(stderr, "--transport %s does not go with --url: give http or sse", o.transport)
		}
	case len(rest) > 0 && strings.TrimSpace(rest[0]) == "":
		return cfg, usageError(stderr, "the server command after -- is empty: give the program to start, e.g. -- node server.js")
	case len(rest) > 0:
		if len(o.headers) > 0 {
			return cfg, usageError(stderr, "--header applies to --url only")
		}
		if o.transport != "" && o.transport != harness.TransportStdio {
			return cfg, usageError(stderr, "--transport %s needs --url; a command after -- is tested over stdio", o.transport)
		}
		cfg.Transport, cfg.Command = harness.TransportStdio, rest
	default:
		return cfg, usageError(stderr, "nothing to test: give a server command after -- (stdio) or --url URL (Streamable HTTP)\n\n%s", usage)
	}
	return cfg, -1
}

// execute resolves the schemas, runs the suite, writes the outputs and returns the exit code.
func execute(ctx context.Context, cfg runner.Config, o runOptions, stdout, stderr io.Writer) int {
	run, code := runOnce(ctx, cfg, o, stderr)
	if run == nil {
		return code
	}
	return finish(run, o, o.outputs("", ""), stdout, stderr)
}

// runOnce resolves the schemas and runs the suite once; it returns a nil run and the exit code
// when the run could not start.
func runOnce(ctx context.Context, cfg runner.Config, o runOptions, stderr io.Writer) (*reports.Run, int) {
	set, code := loadSchemas(o, stderr)
	if set == nil {
		return nil, code
	}
	return runTarget(ctx, cfg, set, reports.NewProgress(stderr, 0, console(stderr, o.noColor)), stderr)
}

// revisionListProblem says what is wrong with a --revision value ("" when nothing): auto, or
// known revisions separated by commas, each once, at most one of them modern (a server speaks
// one modern revision per run's discovery).
func revisionListProblem(v string) string {
	if v == "auto" {
		return ""
	}
	seen, modern := map[string]bool{}, 0
	for _, id := range strings.Split(v, ",") {
		switch {
		case !revisions.Known(id):
			return fmt.Sprintf("%q is not one", id)
		case seen[id]:
			return fmt.Sprintf("%s is listed twice", id)
		}
		seen[id] = true
		if revisions.IsModern(id) {
			modern++
		}
	}
	if modern > 1 {
		return "more than one stateless revision"
	}
	return ""
}

// loadSchemas compiles the schema of every revision from the pinned source (exit 3 when one
// cannot be had).
func loadSchemas(o runOptions, stderr io.Writer) (*schemas.Set, int) {
	set := schemas.NewSet(schemas.SourceFromEnv(o.schemasDir))
	for _, rev := range revisions.IDs() {
		if _, err := set.Validator(rev); err != nil {
			fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
			return nil, reports.ExitError
		}
	}
	return set, 0
}

// runTarget runs the suite on cfg's target with the compiled schemas set, drawing on progress
// (which several runs may share), and returns the run or nil and the exit code.
func runTarget(ctx context.Context, cfg runner.Config, set *schemas.Set, progress *reports.Progress, stderr io.Writer) (*reports.Run, int) {
	cfg.Schemas = set
	cfg.Progress = progress
	progress.Logf("mcp-conform %s: testing %s", cfg.Tool.Version, describeTarget(cfg))
	run, err := runner.Run(ctx, cfg)
	progress.Clear()
	if err != nil {
		progress.Logf("mcp-conform: %v", err)
		if na := (*runner.NothingAppliesError)(nil); errors.As(err, &na) {
			return nil, reports.ExitUsage
		}
		return nil, reports.ExitError
	}
	return run, 0
}

// output is one file a finished run is written to.
type output struct {
	path   string
	render func(io.Writer, *reports.Run) error
}

// outputs lists the files of a run: with --out DIR, DIR/results.json, DIR/report.html,
// DIR/junit.xml, DIR/results.sarif and DIR/badge.svg; --sarif, html and junit name further
// files (html and junit: report subcommand); --write-baseline adds the baseline.
func (o runOptions) outputs(html, junit string) []output {
	var outs []output
	if o.out != "" {
		outs = append(outs,
			output{filepath.Join(o.out, "results.json"), reports.WriteJSON},
			output{filepath.Join(o.out, "report.html"), reports.WriteHTML},
			output{filepath.Join(o.out, "junit.xml"), o.writeJUnit},
			output{filepath.Join(o.out, "results.sarif"), o.writeSARIF},
			output{filepath.Join(o.out, "badge.svg"), reports.WriteBadge})
	}
	if o.sarif != "" {
		outs = append(outs, output{o.sarif, o.writeSARIF})
	}
	if html != "" {
		outs = append(outs, output{html, reports.WriteHTML})
	}
	if junit != "" {
		outs = append(outs, output{junit, o.writeJUnit})
	}
	if o.writeBaseline != "" {
		loaded := o.loaded
		outs = append(outs, output{o.writeBaseline, func(w io.Writer, r *reports.Run) error {
			return reports.WriteBaseline(w, r, loaded.Uncovered(r)...)
		}})
	}
	return outs
}

// finish applies the baseline to a finished run, writes its files and stdout, prints the
// console summary and returns the exit code. A file that cannot be written is an error (exit
// 3) unless the verdicts already make the run fail (exit 1); stdout still gets the chosen
// format.
func finish(run *reports.Run, o runOptions, outs []output, stdout, stderr io.Writer) int {
	if o.loaded != nil {
		o.loaded.Apply(run)
	}
	run.Finalize()
	var written, baselines []string
	writeErr := false
	keptBaseline := ""
	for _, out := range outs {
		if out.path == o.writeBaseline && run.Aborted != "" {
			// A run not carried out in full lacks the failures of the rules it never ran: its
			// baseline would silently forgive nothing and drop what an older one lists.
			keptBaseline = out.path
			continue
		}
		if err := writeFileAtomic(out.path, func(w io.Writer) error { return out.render(w, run) }); err != nil {
			fmt.Fprintf(stderr, "mcp-conform: writing %s: %v\n", out.path, err)
			writeErr = true
			continue
		}
		if out.path == o.writeBaseline { // not a report: the summary names it apart
			baselines = append(baselines, out.path)
		} else {
			written = append(written, out.path)
		}
	}
	switch o.format {
	case "json":
		if err := reports.WriteJSON(stdout, run); err != nil {
			fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
			writeErr = true
		}
	default:
		reports.WriteText(stdout, run, false)
	}
	for _, n := range run.Notes {
		fmt.Fprintf(stderr, "note: %s\n", reports.ConsoleText(n))
	}
	opts := console(stderr, o.noColor)
	// On a terminal the text on stdout already shows every result line: the summary on stderr
	// gives the counts only, so nothing is printed twice.
	opts.CountsOnly = o.format == "text" && isTerminal(stdout)
	if err := reports.WriteSummary(stderr, run, opts, written...); err != nil {
		writeErr = true
	}
	for _, b := range baselines {
		fmt.Fprintf(stderr, "baseline written: %s\n", reports.ConsoleText(b))
	}
	if keptBaseline != "" {
		fmt.Fprintf(stderr, "baseline not written: the run was not carried out in full; %s is left as it was\n", reports.ConsoleText(keptBaseline))
	}
	code := reports.ExitCode(run, o.strict, len(run.StaleBaseline))
	if writeErr && code == reports.ExitOK {
		code = reports.ExitError
	}
	o.github(run, code, stderr)
	return code
}

// loadBaseline parses --baseline (exit code 2 on a bad file, -1 when all is well) and warns
// about entries naming rules this build does not know.
func (o *runOptions) loadBaseline(ruleSet []catalog.Rule, stderr io.Writer) int {
	if o.baseline == "" {
		return -1
	}
	b, err := reports.LoadBaseline(o.baseline)
	if err != nil {
		return usageError(stderr, "--baseline: %v", err)
	}
	known := map[string]bool{}
	for _, r := range ruleSet {
		known[r.ID] = true
	}
	for _, e := range b.Unknown(func(id string) bool { return known[id] }) {
		fmt.Fprintf(stderr, "mcp-conform: warning: baseline entry %s (line %d) names a rule this build does not know\n", e, e.Line)
	}
	for _, e := range b.Entries {
		if e.Revision != "" && !revisions.Known(e.Revision) {
			return usageError(stderr, "--baseline: line %d: revision %q is not one of %s", e.Line, e.Revision, strings.Join(revisions.IDs(), ", "))
		}
	}
	o.loaded = b
	return -1
}

// writeFileAtomic renders into a temporary file beside path and renames it into place, so a
// reader never sees half a report.
func writeFileAtomic(path string, render func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := render(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// checkWritable creates dir if needed and proves a file can be written in it, so that a run of
// several minutes is not lost to an unwritable --out at the end.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".mcp-conform-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func describeTarget(cfg runner.Config) string {
	switch cfg.Transport {
	case harness.TransportHTTP:
		return "Streamable HTTP endpoint " + cfg.URL
	case harness.TransportSSE:
		return "HTTP+SSE endpoint " + cfg.URL
	}
	return "stdio server " + strings.Join(cfg.Command, " ")
}

func toolInfo() reports.Tool {
	t := reports.Tool{Name: "mcp-conform", Version: Version, Commit: Commit}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if t.Version == "" && bi.Main.Version != "" {
			t.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && t.Commit == "" {
				t.Commit = s.Value
			}
		}
	}
	if t.Version == "" {
		t.Version = "(devel)"
	}
	if t.Commit == "" {
		t.Commit = pseudoCommit(t.Version)
	}
	if t.Commit == "" {
		t.Commit = "unknown"
	}
	return t
}

func versionCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageError(stderr, "version takes no arguments")
	}
	t := toolInfo()
	fmt.Fprintf(stdout, "mcp-conform %s (commit %s)\n", t.Version, t.Commit)
	for _, p := range schemas.Pins() {
		fmt.Fprintf(stdout, "schema %s: %s@%s sha256:%s\n", p.Revision, p.Path, p.Commit, p.SHA256)
	}
	return reports.ExitOK
}

// listEntry is one rule as `mcp-conform list --format json` prints it.
type listEntry struct {
	ID         string   `json:"id"`
	Level      string   `json:"level"`
	Since      string   `json:"since"`
	Until      string   `json:"until"`
	Transports []string `json:"transports"`
	Title      string   `json:"title"`
	Spec       string   `json:"spec"`
	Status     string   `json:"status"`
	Reason     string   `json:"reason"`
}

func listCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	format := fs.String("format", "text", "text or json")
	if code := parseFlags(fs, args, listUsage, stdout, stderr); code >= 0 {
		return code
	}
	if *format != "text" && *format != "json" {
		return usageError(stderr, "--format must be text or json, not %q", *format)
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "list takes no arguments")
	}
	rules, err := catalog.Catalog()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return reports.ExitError
	}
	known, err := catalog.KnownRules()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return reports.ExitError
	}
	implemented := map[string]bool{}
	entries := make([]listEntry, 0, len(known)+1)
	for _, r := range rules {
		implemented[r.ID] = true
		entries = append(entries, listEntry{ID: r.ID, Level: r.Level, Since: r.Since, Until: r.Until, Transports: r.Transports,
			Title: r.Title, Spec: r.SpecURL(), Status: "implemented"})
	}
	for _, k := range known {
		if implemented[k.ID] {
			continue
		}
		reason := "no scenario yet"
		if k.Deferred != "" {
			reason = k.Deferred
		}
		if !k.Testable() {
			reason = "not black-box testable: " + strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(k.Check, "N/T"), " ("), ")")
		}
		entries = append(entries, listEntry{ID: k.ID, Level: k.Level, Since: k.Since, Until: k.Until, Transports: k.Transports,
			Title: k.Title, Spec: k.SpecURL(), Status: "not-implemented", Reason: reason})
	}
	sort.SliceStable(entries, func(i, j int) bool { return catalog.RuleLess(entries[i].ID, entries[j].ID) })
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			return reports.ExitError
		}
		return reports.ExitOK
	}
	n, probes := 0, 0
	for _, e := range entries {
		if e.Level == "PROBE" {
			probes++
			n--
		}
		tr := "any"
		if len(e.Transports) > 0 {
			tr = strings.Join(e.Transports, ",")
		}
		status := "✓"
		if e.Status != "implemented" {
			status = "-"
		} else {
			n++
		}
		fmt.Fprintf(stdout, "%s %-11s %-10s %-5s %s\n", status, e.ID, e.Level, tr, e.Title)
	}
	fmt.Fprintf(stdout, "%d rules, %d implemented (✓), and %d probes; `list --format json` gives revisions, spec links and reasons\n", len(entries)-probes, n, probes)
	return reports.ExitOK
}

// headerProblem says why a --header cannot be sent as given ("" when it can): the name must be
// an RFC 9110 token and the value free of control characters other than tab (a CR LF would
// smuggle a second header).
func headerProblem(name, value string) string {
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return "the name is not an HTTP token"
		}
	}
	for _, r := range value {
		if (r < ' ' && r != '\t') || r == 0x7f {
			return "the value contains a control character"
		}
	}
	return ""
}

// urlProblem says why an http(s) --url cannot be used ("" when it can): it must parse, name a
// host, and any port must be 1..65535.
func urlProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return err.Error()
	}
	if u.Hostname() == "" {
		return "no host"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "the port must be 1..65535"
		}
	}
	return ""
}
