package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestMain lets the test binary stand in for mcp-conform when demo re-executes itself as the
// reference server (os.Executable is the test binary here).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == referenceServerCmd {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	// Tests run in process: on a GitHub runner they must not annotate the job or write its
	// summary (the tests that check those set the variables themselves).
	os.Unsetenv(envGitHubActions)
	os.Unsetenv(envStepSummary)
	os.Exit(m.Run())
}

// schemasEnv fails the test unless MCP_CONFORM_SCHEMAS names the schema folder (Main reads it).
func schemasEnv(t *testing.T) {
	t.Helper()
	testutil.SchemasDir(t)
}

func mainOut(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"no command":         {},
		"unknown command":    {"frobnicate"},
		"nothing to test":    {"run"},
		"both targets":       {"run", "--url", "http://127.0.0.1:1/mcp", "--", "x"},
		"bad url":            {"run", "--url", "ftp://x"},
		"bad format":         {"run", "--format", "xml", "--", "x"},
		"bad revision":       {"run", "--revision", "2020-01-01", "--", "x"},
		"revision twice":     {"run", "--revision", revisions.LatestLegacy().ID + "," + revisions.LatestLegacy().ID, "--", "x"},
		"revision list typo": {"run", "--revision", revisions.LatestLegacy().ID + ",auto", "--", "x"},
		"revision empty":     {"run", "--revision", revisions.LatestLegacy().ID + ",", "--", "x"},
		"bad header":         {"run", "--url", "http://127.0.0.1:1/mcp", "--header", "novalue"},
		"header on stdio":    {"run", "--header", "A: b", "--", "x"},
		"unknown flag":       {"run", "--nope", "--", "x"},
		"negative timeout":   {"run", "--timeout", "-1s", "--", "x"},
		"list bad format":    {"list", "--format", "yaml"},
		"list extra arg":     {"list", "extra"},
		"version extra":      {"version", "--json"},
		"bad tags":           {"run", "--tags", "@MUST &&", "--", "x"},
		"tags match none":    {"run", "--tags", "@MSG-014", "--", "x"},
		"rule match none":    {"run", "--rule", "msg-009", "--", "x"},
		"one rule typo":      {"run", "--rule", "MSG-014", "--rule", "XYZ-999", "--", "x"},
		"one tag typo":       {"run", "--tags", "@rule:MSG-014, @rule:MSG-9999", "--", "x"},
		"schemas missing":    {"run", "--schemas", "/nonexistent/schemas", "--", "x"},
		"out unwritable":     {"run", "--out", "/proc/nope", "--", "x"},
		"demo with url":      {"demo", "--url", "http://127.0.0.1:1/mcp"},
		"zero concurrency":   {"run", "--concurrency", "0", "--", "x"},
		"bad call-tools":     {"run", "--call-tools", "some", "--", "x"},
		"header with CR LF":  {"run", "--url", "http://127.0.0.1:1/mcp", "--header", "X: a\r\nY: b"},
		"header name token":  {"run", "--url", "http://127.0.0.1:1/mcp", "--header", "X(1): a"},
		"url without host":   {"run", "--url", "http:///mcp"},
		"url port too large": {"run", "--url", "http://127.0.0.1:99999/mcp"},
		"fixture-map form":   {"run", "--fixture-map", "test_simple_text", "--", "x"},
		"fixture-map name":   {"run", "--fixture-map", "test_simpel_text=echo", "--", "x"},
		"fixture-map twice":  {"run", "--fixture-map", "test_simple_text=a", "--fixture-map", "test_simple_text=b", "--", "x"},
		"sse on stdio":       {"run", "--transport", "sse", "--", "x"},
		"stdio with url":     {"run", "--transport", "stdio", "--url", "http://127.0.0.1:1/sse"},
		"unknown transport":  {"run", "--transport", "ws", "--url", "http://127.0.0.1:1/sse"},
		"sse at a new rev":   {"run", "--transport", "sse", "--revision", "2025-11-25,2026-07-28", "--url", "http://127.0.0.1:1/sse"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := mainOut(args...)
			require.Equal(t, reports.ExitUsage, code, stderr)
			require.Empty(t, stdout, "usage errors print nothing on stdout")
			require.NotEmpty(t, stderr)
		})
	}
}

func TestListJSON(t *testing.T) {
	code, stdout, _ := mainOut("list", "--format", "json")
	require.Equal(t, 0, code)
	var entries []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &entries))
	require.GreaterOrEqual(t, len(entries), 300, "every rule of the catalogue is listed")
	implemented := 0
	for _, e := range entries {
		for _, k := range []string{"id", "level", "since", "until", "transports", "title", "spec", "status", "reason"} {
			require.Contains(t, e, k, "list entry %v", e["id"])
		}
		switch e["status"] {
		case "implemented":
			implemented++
		case "not-implemented":
			require.NotEmpty(t, e["reason"], "%v needs a reason", e["id"])
		default:
			t.Fatalf("%v: status %v", e["id"], e["status"])
		}
		require.True(t, strings.HasPrefix(e["spec"].(string), "https://modelcontextprotocol.io/specification/"))
	}
	require.GreaterOrEqual(t, implemented, 25)
}

func TestVersionNamesSchemaPins(t *testing.T) {
	code, stdout, _ := mainOut("version")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "mcp-conform ")
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		require.Contains(t, stdout, "schema "+rev+":")
	}
}

func TestSchemasUnavailableExit3(t *testing.T) {
	t.Setenv("MCP_CONFORM_SCHEMAS", "")
	t.Setenv("MCP_CONFORM_SCHEMA_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	code, _, stderr := mainOut("run", "--schemas", t.TempDir(), "--", "true")
	require.Equal(t, reports.ExitError, code)
	require.Contains(t, stderr, "--schemas")
}

// TestServerThatNeverAnswers: the acceptance check — a server that never answers is
// given up on within the run timeout with exit 3, and no process is left behind.
func TestServerThatNeverAnswers(t *testing.T) {
	schemasEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	code, _, stderr := mainOut("run", "--timeout", "2s", "--run-timeout", "15s", "--", "sh", "-c", "echo $$ > "+pidFile+"; exec sleep 600")
	elapsed := time.Since(start)
	require.Equal(t, reports.ExitError, code, stderr)
	require.Less(t, elapsed, 20*time.Second)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the server process %d is still alive", pid)
}

func TestDemoPassesAndWritesResults(t *testing.T) {
	t.Parallel() // a whole run or a build: it overlaps the other long tests
	schemasEnv(t)
	out := t.TempDir()
	code, stdout, stderr := mainOut("demo", "--quiet-window", "300ms", "--out", out, "--format", "json")
	require.Equal(t, 0, code, stderr)
	var run reports.Run
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	require.Equal(t, []string{"stdio", "http"}, run.Transports)
	require.GreaterOrEqual(t, run.Summary.Pass, 50)
	require.Zero(t, run.Summary.Fail+run.Summary.Error)
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	require.NoError(t, err)
	require.NoError(t, reports.ValidateDocument(b), "results.json must match reports/results.schema.json")
	for _, name := range []string{"report.html", "junit.xml"} {
		st, err := os.Stat(filepath.Join(out, name))
		require.NoError(t, err)
		require.NotZero(t, st.Size(), name)
	}
	var fromFile reports.Run
	require.NoError(t, json.Unmarshal(b, &fromFile))
	require.Equal(t, run.Summary, fromFile.Summary)
	seqs := map[int]bool{}
	for _, f := range run.Frames {
		require.False(t, seqs[f.Seq], "frame seq %d repeated", f.Seq)
		seqs[f.Seq] = true
	}
	for _, r := range run.Results {
		for _, s := range r.Frames {
			require.True(t, seqs[s], "%s cites frame %d that is not in the document", r.Rule, s)
		}
	}
}

// TestRunBrokenReferenceExits1: -break of a MUST rule makes the run exit 1 with that rule fail.
func TestRunBrokenReferenceExits1(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	code, stdout, stderr := mainOut("run", "--quiet-window", "300ms", "--rule", "META-001", "--", self, referenceServerCmd, "-break", "META-001")
	require.Equal(t, reports.ExitFail, code, stderr)
	require.Contains(t, stdout, "FAIL")
	require.Contains(t, stdout, "META-001")
}

func TestRunJSONOnStdoutOnly(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	code, stdout, stderr := mainOut("run", "--format", "json", "--quiet-window", "300ms", "--rule", "DISC-", "--", self, referenceServerCmd)
	require.Equal(t, 0, code, stderr)
	var run reports.Run
	require.NoError(t, json.Unmarshal([]byte(stdout), &run), "stdout must be exactly one JSON document")
	for _, r := range run.Results {
		require.True(t, strings.HasPrefix(r.Rule, "DISC-"), r.Rule)
	}
	require.Contains(t, stderr, "results: 6 pass")
}

// TestBaselineRoundTrip: --write-baseline on a broken run, the same run with that baseline
// exits 0 with xfail, and the unbroken server with it exits 1 naming the stale entry.
func TestBaselineRoundTrip(t *testing.T) {
	t.Parallel() // a whole run or a build: it overlaps the other long tests
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	baseline := filepath.Join(t.TempDir(), "baseline.yml")
	broken := []string{"--", self, referenceServerCmd, "-break", "META-001"}
	args := func(extra ...string) []string {
		a := append([]string{"run", "--quiet-window", "200ms", "--rule", "META-", "--format", "json"}, extra...)
		return a
	}

	code, _, stderr := mainOut(append(args("--write-baseline", baseline), broken...)...)
	require.Equal(t, reports.ExitFail, code, stderr)
	b, err := os.ReadFile(baseline)
	require.NoError(t, err)
	require.Contains(t, string(b), "rule: META-001")

	code, stdout, stderr := mainOut(append(args("--baseline", baseline), broken...)...)
	require.Equal(t, reports.ExitOK, code, stderr)
	var run reports.Run
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	require.Equal(t, 1, run.Summary.XFail)
	require.Zero(t, run.Summary.Fail)

	code, stdout, stderr = mainOut(append(args("--baseline", baseline), "--", self, referenceServerCmd)...)
	require.Equal(t, reports.ExitFail, code, stderr)
	require.Contains(t, stderr, "stale")
	require.Contains(t, stderr, "META-001")
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	require.Len(t, run.StaleBaseline, 1)
	require.Equal(t, "META-001", run.StaleBaseline[0].Rule)
}

// TestReportRerendersSavedRun: `report` re-renders a saved results.json into HTML and JUnit
// and exits as the run did.
func TestReportRerendersSavedRun(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	out := t.TempDir()
	code, _, stderr := mainOut("run", "--quiet-window", "200ms", "--rule", "MSG-014", "--out", out, "--", self, referenceServerCmd, "-break", "MSG-014")
	require.Equal(t, reports.ExitFail, code, stderr)
	html, junit := filepath.Join(out, "again.html"), filepath.Join(out, "again.xml")
	code, stdout, stderr := mainOut("report", filepath.Join(out, "results.json"), "--html", html, "--junit", junit)
	require.Equal(t, reports.ExitFail, code, stderr)
	require.Contains(t, stdout, "MSG-014")
	for _, f := range []string{html, junit} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.Contains(t, string(b), "MSG-014")
	}
	require.NoError(t, os.WriteFile(filepath.Join(out, "bad.json"), []byte(`{"schemaVersion":"1"}`), 0o644))
	code, _, _ = mainOut("report", filepath.Join(out, "bad.json"))
	require.Equal(t, reports.ExitUsage, code)

	// An output that cannot be written is a usage error before anything renders, whatever
	// the verdicts (it was exit 1 here, 3 on a clean run).
	for _, flag := range []string{"--html", "--junit", "--sarif", "--write-baseline"} {
		code, stdout, stderr = mainOut("report", filepath.Join(out, "results.json"), flag, "/proc/nope/x")
		require.Equal(t, reports.ExitUsage, code, stderr)
		require.Empty(t, stdout)
		require.Contains(t, stderr, flag+" /proc/nope/x")
	}
}

// TestTransportSSEWithDefaultRevision: --transport sse with the default --revision auto is no
// usage error (auto means the handshake revisions the server accepts over it); a closed port
// then stops the run as any unreachable server does.
func TestTransportSSEWithDefaultRevision(t *testing.T) {
	schemasEnv(t)
	code, _, stderr := mainOut("run", "--transport", "sse", "--startup-timeout", "2s", "--url", "http://127.0.0.1:1/sse")
	require.NotEqual(t, reports.ExitUsage, code, stderr)
	require.NotContains(t, stderr, "cannot carry revision")
}
