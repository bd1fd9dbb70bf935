package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/fixtures/refserver"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/runner"
)

// referenceServerCmd is the hidden subcommand through which `demo` runs the built-in reference
// server as its own stdio child process (this same binary).
const referenceServerCmd = "__reference-server"

// serveReference serves the reference server over this process's stdin and stdout; args are
// `-break RULE-ID` flags.
func serveReference(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(referenceServerCmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var breaks multiFlag
	fs.Var(&breaks, "break", "rule id to violate (repeatable)")
	if err := fs.Parse(args); err != nil {
		return reports.ExitUsage
	}
	if err := refserver.ValidateBreaks(breaks); err != nil {
		return usageError(stderr, "%v", err)
	}
	srv := refserver.New(refserver.Options{Breaks: toSet(breaks), Stderr: stderr})
	if err := srv.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "reference server: %v\n", err)
		return 1
	}
	return 0
}

func toSet(ids []string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// demoCmd runs the whole suite against the built-in reference server, first over stdio (this
// binary as the child process) and then over Streamable HTTP (served in process on a loopback
// port), and reports both in one result document.
func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o runOptions
	fs := runFlags("demo", &o, stderr)
	if code := parseFlags(fs, args, demoUsage, stdout, stderr); code >= 0 {
		return code
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: cannot find this executable for the stdio demo: %v\n", err)
		return reports.ExitError
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: cannot listen on loopback for the HTTP demo: %v\n", err)
		return reports.ExitError
	}
	// Over HTTP the reference requires legacy sessions, as most deployed legacy servers do and as
	// its own tests run it (TestReferencePasses): the rules that need session state (LFEAT-011's
	// URL elicitation, LHTTP-014) have one to judge.
	ref := refserver.New(refserver.Options{Stderr: io.Discard, Sessions: true})
	srv := &http.Server{Handler: ref.Handler(), ConnContext: ref.ConnContext}
	go func() { _ = srv.Serve(ln) }()
	defer func() { ref.Close(); _ = srv.Close() }()
	url := "http://" + ln.Addr().String() + "/mcp"

	// The two transports run at once, on one compiled schema set and one progress line.
	var cfgs []runner.Config
	for _, target := range []runner.Config{
		{Transport: harness.TransportStdio, Command: []string{self, referenceServerCmd}},
		{Transport: harness.TransportHTTP, URL: url},
	} {
		cfg, code := o.config(fs.Args(), stderr, &target)
		if code >= 0 {
			return code
		}
		cfgs = append(cfgs, cfg)
	}
	set, code := loadSchemas(o, stderr)
	if set == nil {
		return code
	}
	progress := reports.NewProgress(stderr, 0, console(stderr, o.noColor))
	runs := make([]*reports.Run, len(cfgs))
	codes := make([]int, len(cfgs))
	var wg sync.WaitGroup
	for i := range cfgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i], codes[i] = runTarget(ctx, cfgs[i], set, progress, stderr)
		}()
	}
	wg.Wait()
	// A selection that fits one transport only (--tags @transport:http) runs that half: a
	// half with nothing to test is left out, and the demo is a usage error only when every
	// half is.
	var done []*reports.Run
	for i := range runs {
		switch {
		case runs[i] != nil:
			done = append(done, runs[i])
		case codes[i] != reports.ExitUsage:
			return codes[i]
		}
	}
	if len(done) == 0 {
		return reports.ExitUsage
	}
	merged := mergeRuns(done)
	return finish(merged, o, o.outputs("", ""), stdout, stderr)
}

// mergeRuns joins runs of one server over several transports into one document, renumbering
// frames so that seq stays unique.
func mergeRuns(runs []*reports.Run) *reports.Run {
	out := *runs[0]
	out.Results = nil
	out.Frames = nil
	out.Transports = nil
	out.Revisions = nil
	seenRev := map[string]bool{}
	offset := 0
	for _, r := range runs {
		out.Transports = append(out.Transports, r.Transports...)
		for _, rev := range r.Revisions {
			if !seenRev[rev] {
				seenRev[rev] = true
				out.Revisions = append(out.Revisions, rev)
			}
		}
		if r.Target.URL != "" {
			out.Target.URL = r.Target.URL
		}
		for _, res := range r.Results {
			for i := range res.Frames {
				res.Frames[i] += offset
			}
			for i := range res.SchemaErrors {
				res.SchemaErrors[i].Frame += offset
			}
			out.Results = append(out.Results, res)
		}
		for _, f := range r.Frames {
			f.Seq += offset
			out.Frames = append(out.Frames, f)
		}
		offset += len(r.Frames)
		if r.Aborted != "" && out.Aborted == "" {
			out.Aborted = r.Aborted
		}
		out.DurationMs = r.StartedAt.Sub(runs[0].StartedAt).Milliseconds() + r.DurationMs
	}
	out.Notes = nil
	for _, r := range runs {
		for _, n := range r.Notes {
			out.Notes = append(out.Notes, r.Transports[0]+": "+n)
		}
	}
	out.Target.Transport = strings.Join(out.Transports, "+")
	out.Finalize()
	return &out
}
