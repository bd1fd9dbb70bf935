package runner_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/runner"
)

// startSSE starts the reference fixture serving the HTTP+SSE transport of 2024-11-05 with the
// given flags and returns its SSE endpoint's URL; the process is stopped when the test ends.
func startSSE(t testing.TB, flags ...string) string {
	t.Helper()
	argv := append([]string{referenceBinary(t), "-transport", "sse"}, flags...)
	return testutil.StartHTTPServer(t, 30*time.Second, argv...)
}

// untestableOverSSE are the rules the suite does not test over the HTTP+SSE transport: MSG-018
// sends a batch, which the harness neither posts nor reads there.
var untestableOverSSE = map[string]bool{"MSG-018": true}

// TestReferencePassesSSE: over the HTTP+SSE transport (forced) the reference is tested at
// every handshake revision it accepts, 2024-11-05 (the transport's own) among them, and every
// rule that holds there on that transport passes, except the results the fixture gives over
// stdio too (defects of its behaviour at an older revision, not of the transport: the same
// verdict on both is required). The SSE rules pass at 2024-11-05.
func TestReferencePassesSSE(t *testing.T) {
	rules, err := catalog.Catalog()
	require.NoError(t, err)
	byID := map[string]catalog.Rule{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	oldest := revisions.Oldest().ID
	run := runReferenceWith(t, "sse", "", time.Now().UnixNano(), 4)
	require.Contains(t, run.Revisions, oldest)
	require.NotContains(t, run.Revisions, revisions.Modern().ID, "no modern era over HTTP+SSE")
	require.Equal(t, []string{"sse"}, run.Transports)
	stdio := verdicts(runReference(t, "stdio", ""))
	passed := 0
	for _, res := range run.Results {
		key := res.Rule + "@" + res.Revision
		r := byID[res.Rule]
		applies, _ := r.AppliesTo(res.Revision, "sse")
		switch {
		case !applies:
			require.Equal(t, reports.NA, res.Verdict, key)
		case r.Level == "PROBE":
			require.Contains(t, []reports.Verdict{reports.Info, reports.NA}, res.Verdict, key)
		case res.Verdict == reports.Pass:
			passed++
		case res.Verdict == reports.NA && (naByDesign[r.ID] || stdio[key] == reports.NA || stdio[key] == ""):
		case res.Verdict == reports.Untestable && untestableOverSSE[r.ID]:
		default:
			require.Equal(t, stdio[key], res.Verdict, "%s is %s over sse (%s) but %s over stdio", key, res.Verdict, res.Reason, stdio[key])
		}
	}
	require.GreaterOrEqual(t, passed, 25)
	got := verdicts(run)
	for _, r := range rules {
		if strings.HasPrefix(r.ID, "SSE-") {
			require.Equal(t, reports.Pass, got[r.ID+"@"+oldest], "%s: %s", r.ID, describeRun(run))
		}
	}
}

// TestSSEFallbackDetection: --url without --transport reaches an HTTP+SSE server by the
// backwards-compatibility steps (initialize refused with 4xx, then a GET whose first event is
// endpoint), and a Streamable HTTP server is not taken for one.
func TestSSEFallbackDetection(t *testing.T) {
	for name, url := range map[string]string{"sse": startSSE(t), "http": startHTTP(t)} {
		t.Run(name, func(t *testing.T) {
			cfg := runner.Config{
				Transport: "http", SSEFallback: true, URL: url, Revision: "auto", StartupTimeout: 30 * time.Second,
				Timeout: 5 * time.Second, QuietWindow: 300 * time.Millisecond, RunTimeout: time.Minute, MaxFrame: 1 << 20,
				Schemas: testutil.Schemas(t), Rules: []string{"MSG-001"},
				Tool: reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
			}
			run, err := runner.Run(context.Background(), cfg)
			require.NoError(t, err)
			require.Empty(t, run.Aborted)
			require.Equal(t, []string{name}, run.Transports)
			require.Equal(t, name, run.Target.Transport)
			detected := false
			for _, n := range run.Notes {
				detected = detected || strings.Contains(n, "HTTP+SSE transport ("+revisions.Oldest().ID+") detected")
			}
			require.Equal(t, name == "sse", detected, "notes: %v", run.Notes)
			if name == "sse" {
				require.Contains(t, run.Revisions, revisions.LatestLegacy().ID)
				require.Equal(t, reports.Pass, verdicts(run)["MSG-001@"+revisions.LatestLegacy().ID])
			}
		})
	}
}

// TestSSEFallbackNeedsEndpointEvent: a URL that refuses the POSTed initialize with 404 and whose
// GET opens no SSE stream is no HTTP+SSE server: the run cannot start, and its notes say what
// the GET got.
func TestSSEFallbackNeedsEndpointEvent(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	cfg := runner.Config{
		Transport: "http", SSEFallback: true, URL: srv.URL + "/sse", Revision: "auto", StartupTimeout: 10 * time.Second,
		Timeout: 5 * time.Second, QuietWindow: 300 * time.Millisecond, RunTimeout: time.Minute, MaxFrame: 1 << 20,
		Schemas: testutil.Schemas(t), Rules: []string{"MSG-001"},
		Tool: reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
	}
	run, err := runner.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, run.Aborted)
	require.Equal(t, []string{"http"}, run.Transports)
	found := false
	for _, n := range run.Notes {
		found = found || strings.Contains(n, "no HTTP+SSE transport: initialize was refused with HTTP 404, and the GET of the URL answered HTTP 404")
	}
	require.True(t, found, "notes: %v", run.Notes)
}
