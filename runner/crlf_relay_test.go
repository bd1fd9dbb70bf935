package runner_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/runner"
)

// TestReferenceBehindCRLFRelay runs the suite against the reference fixture behind
// fixtures/hostile/crlf-stdout, which turns every LF of its stdout into CR LF: a trailing CR is
// JSON whitespace, so STDIO-002 is warn (RULES.md), not fail, at every revision, and every other
// verdict is the one the reference gets without the relay.
func TestReferenceBehindCRLFRelay(t *testing.T) {
	relay := filepath.Join(t.TempDir(), "crlf-stdout")
	out, err := exec.Command("go", "build", "-o", relay, "../fixtures/hostile/crlf-stdout").CombinedOutput()
	require.NoError(t, err, "building fixtures/hostile/crlf-stdout: %s", out)
	plain := verdicts(runReference(t, "stdio", ""))
	cfg := runner.Config{
		Transport: "stdio", Revision: "auto", Command: []string{relay, referenceBinary(t)},
		StartupTimeout: 30 * time.Second, Timeout: 5 * time.Second, QuietWindow: 300 * time.Millisecond,
		ShutdownGrace: 500 * time.Millisecond, RunTimeout: 3 * time.Minute, MaxFrame: 1 << 20,
		Schemas: testutil.Schemas(t), Concurrency: 2, Tool: reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
	}
	run, err := runner.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Empty(t, run.Aborted, "run aborted; notes: %v", run.Notes)
	require.Equal(t, append(revisions.FilterIDs(revisions.Revision.Modern), revisions.LegacyIDs()...), run.Revisions)
	got := verdicts(run)
	for _, rev := range []string{revisions.Modern().ID, revisions.LatestLegacy().ID} { // STDIO-002 runs at the full revisions only
		require.Equal(t, reports.Warn, got["STDIO-002@"+rev], "STDIO-002@%s:\n%s", rev, describeRun(run))
	}
	for key, v := range got {
		if key == "STDIO-002@"+revisions.Modern().ID || key == "STDIO-002@"+revisions.LatestLegacy().ID {
			continue
		}
		require.Equal(t, plain[key], v, "%s behind the CR LF relay:\n%s", key, describeRun(run))
	}
}
