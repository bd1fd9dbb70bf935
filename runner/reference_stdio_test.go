package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/runner"
)

// TestReferenceModernOnly: with -modern-only the reference fixture is a 2026-07-28-only server;
// every rule passes or is na, and the rules about modern-only servers pass.
func TestReferenceModernOnly(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			argv := []string{referenceBinary(t), "-modern-only"}
			cfg := runner.Config{
				Transport: transport, Revision: "auto", StartupTimeout: 30 * time.Second, Timeout: 5 * time.Second,
				QuietWindow: 300 * time.Millisecond, ShutdownGrace: 500 * time.Millisecond, RunTimeout: 3 * time.Minute, MaxFrame: 1 << 20,
				Schemas: testutil.Schemas(t), Concurrency: 4, Randomize: time.Now().UnixNano(),
				Tool: reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
			}
			if transport == "stdio" {
				cfg.Command = argv
			} else {
				cfg.URL = testutil.StartHTTPServer(t, 30*time.Second, append(argv, "-transport", "http")...)
			}
			run, err := runner.Run(context.Background(), cfg)
			require.NoError(t, err)
			require.Empty(t, run.Aborted, "run aborted; notes: %v", run.Notes)
			require.Equal(t, []string{"2026-07-28"}, run.Revisions)
			probes := 0
			for _, r := range run.Results {
				if r.Level == "PROBE" && r.Verdict == reports.Info {
					probes++
				}
			}
			require.Zero(t, run.Summary.Fail+run.Summary.Error+run.Summary.Warn+run.Summary.Info-probes, "unexpected verdicts:\n%s", describeRun(run))
			got := verdicts(run)
			require.Equal(t, reports.Pass, got["VER-003@2026-07-28"])
			require.Equal(t, reports.NA, got["VER-007@2026-07-28"])
			if transport == "stdio" {
				require.Equal(t, reports.Pass, got["VER-004@2026-07-28"])
			}
		})
	}
}

// TestModernOnlyBreaks proves, on the -modern-only fixture, the breaks of rules that bind only
// a server supporting the modern revision alone (on the dual-era fixture they are info).
func TestModernOnlyBreaks(t *testing.T) {
	for rule, want := range map[string]reports.Verdict{"HTTP-017": reports.Warn, "META-003": reports.Fail} {
		t.Run(rule, func(t *testing.T) {
			t.Parallel()
			url := testutil.StartHTTPServer(t, 30*time.Second, referenceBinary(t), "-modern-only", "-transport", "http", "-break", rule)
			cfg := runner.Config{
				Transport: "http", URL: url, Revision: "auto", StartupTimeout: 30 * time.Second, Timeout: 5 * time.Second,
				QuietWindow: 300 * time.Millisecond, RunTimeout: 3 * time.Minute, MaxFrame: 1 << 20,
				Schemas: testutil.Schemas(t), Concurrency: 4, Rules: []string{rule},
				Tool: reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
			}
			run, err := runner.Run(context.Background(), cfg)
			require.NoError(t, err)
			require.Equal(t, want, verdicts(run)[rule+"@2026-07-28"], "%s", describeRun(run))
		})
	}
}

// naByDesign lists the rules that have nothing to judge on the default, dual-era fixture
// (TestReferencePasses lets them be na there).
var naByDesign = map[string]bool{
	// Rules about modern-only servers, checked by TestReferenceModernOnly. DEP-001 and DEP-002
	// judge only servers that serve 2026-07-28 alone (a new implementation).
	"VER-003": true, "VER-004": true, "DEP-001": true, "DEP-002": true,
	// EXT-005 needs a server advertising the tasks extension, which the fixture does not
	// implement.
	"EXT-005": true,
	// The fixture never closes an SSE stream before its response (its streams are short), so
	// LHTTP-005 (a retry field before such a close) has nothing to judge; its break closes one.
	"LHTTP-005": true,
	// The fixture declares completions, so the rules about a server without them have nothing
	// to judge there; their breaks hide the capability.
	"CMPL-004": true, "CAP-007": true,
	// CANC-001 judges the handshake revisions: at 2026-07-28 STDIO-008 owns stdio and an HTTP
	// client cancels by closing the stream, which leaves nothing to observe (na there).
	"CANC-001": true,
	// CANC-002/003 have no 2026-07-28 wire yet (features/deviations.md): na there.
	"CANC-002": true, "CANC-003": true,
}
