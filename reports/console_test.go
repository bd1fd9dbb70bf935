package reports

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The -update flag rewrites the golden files under testdata/ (go test ./reports -update); it is
// registered here unless another test file of the package registered it first.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
	return true
}()

// checkConsoleGolden compares got with testdata/name, or rewrites the file under -update.
func checkConsoleGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./reports -update to create it")
	require.Equal(t, string(want), string(got), "golden %s differs (go test ./reports -update rewrites it)", path)
}

// summaryRun is baselineRun with a baseline applied (one xfail, one stale entry), a server
// reason that carries terminal escapes, and an abort.
func summaryRun() *Run {
	r := baselineRun()
	r.Results = append(r.Results, Result{Rule: "DISC-005", Level: "SHOULD", Revision: "2026-07-28", Transport: "stdio", Verdict: Warn,
		Title: "The discover result names the server in _meta", Steps: []Step{}, Frames: []int{}})
	for i := range r.Results {
		if r.Results[i].Rule == "META-006" {
			r.Results[i].Reason = "server said \x1b[2J\x07hello\r\nworld"
		}
	}
	(&Baseline{Entries: []BaselineEntry{
		{Rule: "MSG-014", Transport: "stdio", Reason: "SDK ignores unparseable lines (#123)"},
		{Rule: "HDR-001", Transport: "http", Reason: "header checks were missing"},
	}}).Apply(r)
	r.Aborted = "run timeout (5m0s) passed"
	return r
}

func TestConsoleOptions(t *testing.T) {
	cases := []struct {
		terminal, noColor bool
		env               string
		want              ConsoleOptions
	}{
		{true, false, "", ConsoleOptions{Terminal: true, Color: true}},
		{true, true, "", ConsoleOptions{Terminal: true}},
		{true, false, "1", ConsoleOptions{Terminal: true}},
		{true, false, "false", ConsoleOptions{Terminal: true}}, // any non-empty value, as no-color.org says
		{false, false, "", ConsoleOptions{}},
		{false, true, "1", ConsoleOptions{}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, consoleOptions(c.terminal, c.noColor, c.env), "%+v", c)
	}
}

func TestDetectConsoleOffWhenNotATerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr.txt"))
	require.NoError(t, err)
	defer file.Close()
	var nilFile *os.File
	for name, w := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "pipe": pw, "regular file": file, "nil file": nilFile} {
		require.Equal(t, ConsoleOptions{}, DetectConsole(w, false), name)
	}
}

// TestIsTerminalNotDevNull: stdout sent to /dev/null is a character device but no terminal,
// so a run with >/dev/null still gets the full stderr summary.
func TestIsTerminalNotDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no", os.DevNull)
	}
	defer f.Close()
	require.False(t, IsTerminal(f))
}

func TestWriteSummaryPlainGolden(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteSummary(&out, summaryRun(), ConsoleOptions{Terminal: true}, "out/results.json", "out/report.html"))
	require.NotContains(t, out.String(), "\x1b", "no escape sequence without colour, not even one a server sent")
	require.NotContains(t, out.String(), "\r")
	require.NotContains(t, out.String(), "\a")
	checkConsoleGolden(t, "console-summary.golden", out.Bytes())
}

func TestWriteSummaryContent(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteSummary(&out, summaryRun(), ConsoleOptions{}, "out/results.json"))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, strings.Fields(l)[0])
	}
	require.Equal(t, []string{"FAIL", "ERROR", "WARN", "WARN", "XFAIL", "response", "1", "HDR-001", "run", "9", "reports:"}, kinds, out.String())
	require.Contains(t, lines[0], "META-001")
	require.Contains(t, lines[0], "expected error -32602, got a result", "the reason on one line")
	require.Contains(t, lines[2], "DISC-005")
	require.Contains(t, lines[2], "The discover result names the server in _meta", "the title when there is no reason")
	require.Contains(t, lines[3], `server said \x1b[2J\x07hello world`)
	require.Contains(t, lines[4], "baseline: SDK ignores unparseable lines (#123) — expected error -32700")
	require.Equal(t, "      response", lines[5], "a reason past the console width goes on, indented")
	require.Equal(t, "  HDR-001 on http: header checks were missing", lines[7])
	require.Equal(t, "run not carried out in full: run timeout (5m0s) passed", lines[8])
	require.Equal(t, "9 results: 2 pass, 1 fail, 2 warn, 0 info, 2 na, 0 untestable, 1 error, 1 xfail", lines[9])
	require.Equal(t, "reports: out/results.json", lines[10])

	out.Reset()
	require.NoError(t, WriteSummary(&out, &Run{}, ConsoleOptions{}))
	require.Equal(t, "0 results: 0 pass, 0 fail, 0 warn, 0 info, 0 na, 0 untestable, 0 error, 0 xfail\n", out.String())
}

func TestWriteSummaryColour(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteSummary(&out, summaryRun(), ConsoleOptions{Terminal: true, Color: true}))
	s := out.String()
	for _, want := range []string{
		"\x1b[1m\x1b[31mFAIL \x1b[0m META-001",
		"\x1b[1m\x1b[35mERROR\x1b[0m SCHEMA-001",
		"\x1b[33mWARN \x1b[0m DISC-005",
		"\x1b[36mXFAIL\x1b[0m MSG-014",
		"\x1b[1m\x1b[31m1 stale baseline entry",
		"\x1b[32m2 pass\x1b[0m, \x1b[1m\x1b[31m1 fail\x1b[0m, \x1b[33m2 warn\x1b[0m, 0 info, 2 na, 0 untestable",
	} {
		require.Contains(t, s, want)
	}
	require.Contains(t, s, `\x1b[2J`, "the server's escape stays neutralised")
	require.NotContains(t, s, "\x1b[2J")
	for _, line := range strings.Split(s, "\n") {
		if i := strings.LastIndex(line, "\x1b["); i >= 0 {
			require.True(t, strings.HasPrefix(line[i:], ansiReset), "colour left on in %q", line)
		}
	}

	var plain bytes.Buffer
	require.NoError(t, WriteSummary(&plain, summaryRun(), ConsoleOptions{Terminal: true}))
	require.Equal(t, plain.String(), stripANSI(s), "colour changes nothing but the escapes")
}

// stripANSI removes the SGR sequences this package writes.
func stripANSI(s string) string {
	for _, seq := range []string{ansiReset, ansiBold, ansiRed, ansiGreen, ansiYellow, ansiMagenta, ansiCyan} {
		s = strings.ReplaceAll(s, seq, "")
	}
	return s
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriteSummaryReportsTheWriteError(t *testing.T) {
	w := &failingWriter{}
	require.EqualError(t, WriteSummary(w, summaryRun(), ConsoleOptions{}), "disk full")
	require.Equal(t, 1, w.n, "stops at the first error")
	require.EqualError(t, WriteBaseline(w, summaryRun()), "disk full")
}

func TestConsoleWrapsLongReasons(t *testing.T) {
	tail := "the useful part: the server said -32602 for params.name"
	long := strings.Repeat("context ", 40) + tail
	r := &Run{Results: []Result{{Rule: "MSG-014", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail, Reason: long}},
		Aborted: "cannot start the server: " + strings.Repeat("x", 250) + " " + tail}
	var out bytes.Buffer
	require.NoError(t, WriteSummary(&out, r, ConsoleOptions{}))
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		require.LessOrEqual(t, len([]rune(l)), consoleWidth, "line %q", l)
	}
	joined := strings.Join(strings.Fields(out.String()), " ")
	require.Contains(t, joined, tail, "the reason is wrapped, not cut")
	require.Contains(t, joined, strings.Repeat("x", 70), "a word longer than a line is split, not dropped")
	require.Equal(t, strings.Count(long, "context"), strings.Count(out.String(), "context"))
	require.Equal(t, 2, strings.Count(joined, tail), "the reason and the abort, each whole")
	require.Contains(t, out.String(), "run not carried out in full: cannot start the server:")

	out.Reset()
	WriteText(&out, r, false)
	require.Equal(t, 2, strings.Count(strings.Join(strings.Fields(out.String()), " "), tail))

	require.Equal(t, `x\x1b[31my\x9b a b`, wrapReason("x\x1b[31my\u009b \n a\tb", 0, 0))
	huge := wrapReason(strings.Repeat("é", maxConsoleReason+10), 0, 0)
	require.Contains(t, huge, "(10 more characters in results.json)")
}

func TestConsoleSummaryCountsOnly(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteSummary(&out, summaryRun(), ConsoleOptions{CountsOnly: true}, "out/results.json"))
	s := out.String()
	for _, absent := range []string{"META-001", "SCHEMA-001", "DISC-005", "MSG-014", "run not carried out"} {
		require.NotContains(t, s, absent, "stdout on the terminal shows the result lines already")
	}
	require.Contains(t, s, "HDR-001 on http: header checks were missing", "stale entries are not on stdout: they stay")
	require.Contains(t, s, "9 results: 2 pass, 1 fail")
	require.Contains(t, s, "reports: out/results.json")
}

func TestConsoleInterruptedRunInOneLine(t *testing.T) {
	r := &Run{Aborted: "the run was interrupted"}
	r.Results = append(r.Results, Result{Rule: "MSG-001", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail, Reason: "bad id"})
	r.Aborted = "the run was interrupted"
	for i := 0; i < 77; i++ {
		r.Results = append(r.Results, Result{Rule: fmt.Sprintf("TOOL-%03d", i+1), Revision: "2026-07-28", Transport: "stdio",
			Verdict: NotRun, Reason: NotRunReason("the run was interrupted")})
	}
	var out bytes.Buffer
	require.NoError(t, WriteSummary(&out, r, ConsoleOptions{}))
	require.NotContains(t, out.String(), "ERROR")
	require.Contains(t, out.String(), "run not carried out in full: the run was interrupted; 77 rules not run\n")
	require.Contains(t, out.String(), "FAIL  MSG-001")
	require.Equal(t, 3, strings.Count(out.String(), "\n"), out.String())
	require.Contains(t, out.String(), "0 error, 0 xfail, 77 not run\n", "rules not run are counted as not run, never as error")
	require.Equal(t, ExitFail, ExitCode(r, false, 0))
	r.Results = r.Results[1:]
	require.Equal(t, ExitError, ExitCode(r, false, 0), "a run with rules not run is never green")
	r.Aborted = ""
	require.Equal(t, ExitError, ExitCode(r, false, 0), "a rule not run alone makes the run exit 3")
	r.Aborted = "the run was interrupted"

	out.Reset()
	WriteText(&out, r, false)
	require.NotContains(t, out.String(), "TOOL-0")
	require.Contains(t, out.String(), "run not carried out in full: the run was interrupted; 77 rules not run\n")
}

func TestConsoleOneResultSingular(t *testing.T) {
	r := &Run{Results: []Result{{Rule: "MSG-001", Verdict: Pass}}}
	var out bytes.Buffer
	require.NoError(t, WriteSummary(&out, r, ConsoleOptions{}))
	require.Contains(t, out.String(), "1 result: 1 pass,")
	out.Reset()
	WriteText(&out, r, false)
	require.Contains(t, out.String(), "1 result: 1 pass,")
}

// TestConsoleWrappedServerTextStartsNoWorkflowCommand: a server's reason full of "::error::"
// and "##[error]" is wrapped without any console line (stdout text or stderr summary) starting
// with "::" once its indentation is trimmed, and without "##[" anywhere (a runner reads either
// as a command).
func TestConsoleWrappedServerTextStartsNoWorkflowCommand(t *testing.T) {
	reason := strings.Repeat("::error::wrapped-pwn ", 30) + "##[error]legacy-pwn ##vso[task.complete]x"
	r := &Run{Results: []Result{{Rule: "MSG-016", Level: "SHOULD", Revision: "2026-07-28", Transport: "stdio", Verdict: Warn, Reason: reason}}}
	var summary, text bytes.Buffer
	require.NoError(t, WriteSummary(&summary, r, ConsoleOptions{}))
	WriteText(&text, r, false)
	for name, out := range map[string]string{"summary": summary.String(), "text": text.String()} {
		require.Contains(t, out, "wrapped-pwn", name)
		lines := strings.Split(out, "\n")
		require.Greater(t, len(lines), 3, "%s: the reason is wrapped", name)
		for _, l := range lines {
			require.False(t, strings.HasPrefix(strings.TrimSpace(l), "::"), "%s: %q", name, l)
			require.NotContains(t, l, "##[", name)
			require.NotContains(t, l, "##vso[", name)
		}
	}
}
