package steps_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/steps"
)

// modernOnlySide are the verdicts that change when a break makes the fixture modern-only: the
// dual-era rules no longer apply, the modern-only ones do.
func modernOnlySide(extra map[string]reports.Verdict) map[string]reports.Verdict {
	m := map[string]reports.Verdict{
		"VER-007@2026-07-28": reports.NA, "VER-008@2026-07-28": reports.NA, "VER-009@2026-07-28": reports.NA,
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// stdioBreakCases are the break-table entries of stdio transport and versioning (STDIO, VER).
var stdioBreakCases = []breakCase{
	{Rule: "STDIO-004", Transports: stdioOnly},
	{Rule: "STDIO-005", Transports: stdioOnly},
	{Rule: "STDIO-008", Transports: stdioOnly},
	{Rule: "STDIO-010", Transports: stdioOnly},
	// The break makes the fixture modern-only, so the run has no legacy revision.
	{Rule: "VER-003", SideEffects: modernOnlySide(map[string]reports.Verdict{"VER-004@2026-07-28": reports.Pass})},
	{Rule: "VER-004", Transports: stdioOnly, SideEffects: modernOnlySide(map[string]reports.Verdict{"VER-003@2026-07-28": reports.NA})},
	// The legacy-shaped result is also invalid against the 2026-07-28 schema.
	// The fresh processes of CAP-008, ERR-008 and STATE-001 start with a tools/list that the
	// break serves as legacy, but they find their fixture tool on the next page, served as modern.
	// That legacy-shaped tools/list result lacks the caching hints too (CACHE-001).
	{Rule: "VER-007", Transports: stdioOnly, SideEffects: with(schema26, "CACHE-001@2026-07-28", reports.Fail)},
	// The break leaves no working legacy session, so the run is forced to 2026-07-28; VER-009's
	// legacy request after the modern one fails the same way.
	{Rule: "VER-008", Transports: stdioOnly, Revision: "2026-07-28", SideEffects: map[string]reports.Verdict{"VER-009@2026-07-28": reports.Info}},
	// STATE-004's control request is the first message of a fresh process, which the break
	// answers with an unrelated error.
	{Rule: "VER-010", Transports: stdioOnly, SideEffects: map[string]reports.Verdict{"STATE-004@2026-07-28": reports.Warn}},
}

// TestReferenceModernOnly: with -modern-only the reference fixture is a 2026-07-28-only server;
// every rule passes or is na, and the rules about modern-only servers pass.
func TestReferenceModernOnly(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			argv := []string{referenceBinary(t), "-modern-only"}
			cfg := steps.Config{
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
			run, err := steps.Run(context.Background(), cfg)
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

// naByDesign lists the rules that concern only modern-only servers: na on the default, dual-era
// fixture (TestReferencePasses), they are checked by TestReferenceModernOnly.
var naByDesign = map[string]bool{"VER-003": true, "VER-004": true}
