package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

// fakeTerminal makes isTerminal true for the writers given, for the length of the test.
func fakeTerminal(t *testing.T, terminals ...io.Writer) {
	t.Helper()
	old := isTerminal
	t.Cleanup(func() { isTerminal = old })
	isTerminal = func(w io.Writer) bool {
		for _, x := range terminals {
			if w == x {
				return true
			}
		}
		return false
	}
}

// TestConsoleFlagProblems: flag values that cannot work are usage errors (exit 2) with one
// line on stderr that names the flag, never the whole flag list.
func TestConsoleFlagProblems(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"empty rule":          {[]string{"run", "--rule", "", "--", "x"}, "--rule needs a rule id"},
		"zero quiet window":   {[]string{"run", "--quiet-window", "0s", "--", "x"}, "--quiet-window must be positive"},
		"negative quiet":      {[]string{"run", "--quiet-window", "-1s", "--", "x"}, "--quiet-window must be positive"},
		"zero timeout":        {[]string{"run", "--timeout", "0s", "--", "x"}, "--timeout must be positive"},
		"empty command":       {[]string{"run", "--", ""}, "the server command after -- is empty"},
		"concurrency abc":     {[]string{"run", "--concurrency", "abc", "--", "x"}, `run: invalid value "abc" for flag -concurrency`},
		"unknown run flag":    {[]string{"run", "--nope", "--", "x"}, "run: flag provided but not defined: -nope (see 'mcp-conform run --help')"},
		"missing flag value":  {[]string{"run", "--rule"}, "run: flag needs an argument: -rule"},
		"unknown demo flag":   {[]string{"demo", "--nope"}, "(see 'mcp-conform demo --help')"},
		"unknown list flag":   {[]string{"list", "--nope"}, "(see 'mcp-conform list --help')"},
		"unknown report flag": {[]string{"report", "x.json", "--nope"}, "(see 'mcp-conform report --help')"},
		"baseline missing":    {[]string{"run", "--baseline", "/nonexistent/b.yml", "--", "x"}, "--baseline: open /nonexistent/b.yml: no such file or directory"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := mainOut(c.args...)
			require.Equal(t, reports.ExitUsage, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, c.want)
			require.Equal(t, 1, strings.Count(stderr, "\n"), "one line, not the flag list: %s", stderr)
			require.NotContains(t, stderr, "baseline: baseline")
		})
	}
}

// TestConsoleRunHelp: `run --help` starts with how to call run (a command after --, or --url)
// and --out names every report it writes.
func TestConsoleRunHelp(t *testing.T) {
	for _, help := range []string{"--help", "-h"} {
		code, stdout, stderr := mainOut("run", help)
		require.Equal(t, reports.ExitOK, code, stderr)
		require.True(t, strings.HasPrefix(stdout, "Usage:\n  mcp-conform run [flags] -- COMMAND [ARGS...]"), stdout)
		require.Contains(t, stdout, "mcp-conform run [flags] --url URL")
		require.Contains(t, stdout, "-concurrency")
		_, out, _ := strings.Cut(stdout, "-out string")
		out, _, _ = strings.Cut(out, "\n  -")
		for _, f := range []string{"results.json", "report.html", "junit.xml", "results.sarif", "badge.svg"} {
			require.Contains(t, out, f, "--out's help names %s", f)
		}
	}
	code, stdout, _ := mainOut("demo", "--help")
	require.Equal(t, reports.ExitOK, code)
	require.True(t, strings.HasPrefix(stdout, "Usage:\n  mcp-conform demo"), stdout)
	// Every subcommand's help goes to stdout, its flag errors to stderr in one line.
	code, stdout, stderr := mainOut("diff", "-h")
	require.Equal(t, reports.ExitOK, code)
	require.True(t, strings.HasPrefix(stdout, "Usage: mcp-conform diff"), stdout)
	require.Contains(t, stdout, "-format")
	require.Empty(t, stderr)
	code, _, stderr = mainOut("diff", "--nope")
	require.Equal(t, reports.ExitUsage, code)
	require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, stderr)
}

// TestConsoleEraProbeFailureSaidOnce: a server that exits at once fails the era probe, and the
// message says so once ("era probe failed: ...", not "... era probe: ...").
func TestConsoleEraProbeFailureSaidOnce(t *testing.T) {
	schemasEnv(t)
	code, stdout, stderr := mainOut("run", "--", "sh", "-c", "exit 0")
	require.Equal(t, reports.ExitError, code, stderr)
	require.Contains(t, stderr, "era probe failed: ")
	require.Equal(t, 1, strings.Count(stderr, "era probe failed"), stderr)
	require.NotContains(t, stderr+stdout, "era probe failed: era probe")
}

// TestConsoleResultLinesOnce: with stdout on a terminal (text), a failing rule is printed once,
// on stdout, and the stderr summary gives counts only; with stdout redirected or --format json
// the stderr summary lists the failing rule. Without a terminal on stderr there is a line per
// finished feature file.
func TestConsoleResultLinesOnce(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	run := func(terminal bool, format string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		if terminal {
			fakeTerminal(t, &stdout)
		} else {
			fakeTerminal(t)
		}
		code := Main([]string{"run", "--quiet-window", "200ms", "--rule", "META-001", "--format", format, "--", self, referenceServerCmd, "-break", "META-001"}, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	failLine := regexp.MustCompile(`(?m)^FAIL +META-001`)

	code, stdout, stderr := run(true, "text")
	require.Equal(t, reports.ExitFail, code, stderr)
	require.Len(t, failLine.FindAllString(stdout, -1), 1, stdout)
	require.Empty(t, failLine.FindAllString(stderr, -1), "stdout on the terminal has it already:\n%s", stderr)
	require.Contains(t, stderr, "results: 0 pass, 1 fail", "the counts")

	code, stdout, stderr = run(false, "text")
	require.Equal(t, reports.ExitFail, code, stderr)
	require.Len(t, failLine.FindAllString(stdout, -1), 1, stdout)
	require.Len(t, failLine.FindAllString(stderr, -1), 1, "stdout is redirected: the summary lists the failure:\n%s", stderr)
	require.Regexp(t, `(?m)^mcp-conform: 1/1 features, [0-9]+\.[0-9] s$`, stderr, "a CI log shows progress")

	code, _, stderr = run(true, "json")
	require.Equal(t, reports.ExitFail, code, stderr)
	require.Len(t, failLine.FindAllString(stderr, -1), 1, "--format json: the summary lists the failure:\n%s", stderr)
}

// TestConsoleBaselineWrittenOnce: after --write-baseline the summary says "baseline written:
// PATH" and does not list the baseline as a report; used as --baseline, the reason it wrote
// comes back once in the xfail.
func TestConsoleBaselineWrittenOnce(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	baseline := filepath.Join(dir, "baseline.yml")
	broken := []string{"--", self, referenceServerCmd, "-break", "META-001"}
	args := func(extra ...string) []string {
		return append(append([]string{"run", "--quiet-window", "200ms", "--rule", "META-001", "--out", dir}, extra...), broken...)
	}
	code, stdout, stderr := mainOut(args("--write-baseline", baseline)...)
	require.Equal(t, reports.ExitFail, code, stderr)
	require.Contains(t, stderr, "baseline written: "+baseline+"\n")
	_, reportsLine, ok := strings.Cut(stderr, "reports: ")
	require.True(t, ok, stderr)
	reportsLine, _, _ = strings.Cut(reportsLine, "\n")
	require.NotContains(t, reportsLine, "baseline.yml")
	require.Contains(t, reportsLine, "results.json")
	reason := regexp.MustCompile(`(?m)^FAIL +META-001 .* — (.*)$`).FindStringSubmatch(stdout)
	require.NotNil(t, reason, stdout)

	code, stdout, stderr = mainOut(args("--baseline", baseline)...)
	require.Equal(t, reports.ExitOK, code, stderr)
	flat := strings.Join(strings.Fields(stdout), " ") // the reason may be wrapped
	require.Contains(t, flat, "— baseline: "+reason[1]+" ", "the reason once, after baseline:")
	require.Equal(t, 1, strings.Count(flat, reason[1]), stdout)
}

// cancelOn is a stderr that cancels the run once what was written contains want.
type cancelOn struct {
	mu     sync.Mutex
	buf    strings.Builder
	want   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.want) {
		c.cancel()
	}
	return len(p), nil
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// TestConsoleInterruptedRunInOneLine: a run interrupted after its first feature file (the
// context is cancelled when the progress line for it is written) says in one line how many
// rules were not run, instead of one ERROR line each.
func TestConsoleInterruptedRunInOneLine(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fakeTerminal(t)
	stderr := &cancelOn{want: "mcp-conform: 1/2 features", cancel: cancel}
	var stdout bytes.Buffer
	code := runCmd(ctx, []string{"--quiet-window", "200ms", "--concurrency", "1", "--rule", "META-", "--rule", "DISC-", "--", self, referenceServerCmd}, &stdout, stderr, nil)
	require.Equal(t, reports.ExitError, code, stderr.String())
	for name, s := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
		require.NotContains(t, s, "before this rule ran", name)
		require.Regexp(t, `(?m)^run not carried out in full: the run was interrupted; [1-9][0-9]* rules? not run$`, s, name)
	}
}
